# Parses Prometheus text (stdin) with prometheus_client's own parser and prints every sample
# as one JSON object per line: {"family", "type", "help", "name", "labels", "value"}.
# A text the parser refuses exits non-zero with its error on stderr.
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

for family in text_string_to_metric_families(sys.stdin.read()):
    for sample in family.samples:
        print(json.dumps({
            "family": family.name,
            "type": family.type,
            "help": family.documentation,
            "name": sample.name,
            "labels": sample.labels,
            "value": sample.value,
        }))
