#!/usr/bin/env python3
# Writes an SPDX 2.3 JSON SBOM for one release artifact (SPEC §18): a .deb (scripts/deb.sh,
# scripts/deb-render.sh) or an image (scripts/image.sh). The artifact is the described package;
# the Debian packages it holds (an image: every package a file of the image came from) or links
# at run time (a .deb: the packages of the shared libraries it needs) are listed with the version
# the tree's dpkg database records and the license their copyright file declares; the Swift
# runtime, linked statically into the binary, is listed with the compiler's version.
#
#   --root TREE        where var/lib/dpkg/status and usr/share/doc/<package>/copyright are read
#                      (/ for this machine, the arm64 sysroot, an image's build tree)
#   --package NAME     a Debian package of TREE (repeated)
#   --relation R       CONTAINS (an image) or DEPENDS_ON (a .deb's shared libraries)
#   --like SBOM        instead of --root/--package: the Debian packages of another SBOM this
#                      script wrote (the add-on image shares the §14 image's layer)
#
# Debian copyright files in the machine-readable format (DEP-5) name their licenses on `License:`
# lines; the short names Debian uses are mapped to SPDX identifiers, and one that has no SPDX
# identifier becomes a LicenseRef- declared in the document. A file not in that format gives
# NOASSERTION. Reproducible: the creation time is --epoch (SOURCE_DATE_EPOCH), lists are sorted.
import argparse
import hashlib
import json
import os
import re
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--name", required=True, help="the artifact's package name (breeze-agent, …)")
parser.add_argument("--version", required=True)
parser.add_argument("--arch", required=True, choices=["amd64", "arm64"])
parser.add_argument("--kind", required=True, choices=["deb", "image"])
parser.add_argument("--file", required=True, help="the artifact (its SHA-256 goes in the SBOM)")
parser.add_argument("--root")
parser.add_argument("--like")
parser.add_argument("--package", action="append", default=[])
parser.add_argument("--relation", required=True, choices=["CONTAINS", "DEPENDS_ON"])
parser.add_argument("--swift-version", required=True, help="X.Y.Z, or from:SBOM (the version another SBOM names)")
parser.add_argument("--distro", required=True, help="debian-12, …: the purl's distro qualifier")
parser.add_argument("--epoch", type=int, required=True)
parser.add_argument("--out", required=True)
args = parser.parse_args()
if bool(args.root) == bool(args.like) or (args.like and args.package):
    parser.error("give --root (with --package), or --like")


def fail(message):
    print(f"sbom: {message}", file=sys.stderr)
    sys.exit(1)


# Debian's short license names (copyright-format 1.0, "License specification") -> SPDX.
DEBIAN_TO_SPDX = {
    "gpl-1+": "GPL-1.0-or-later", "gpl-2": "GPL-2.0-only", "gpl-2+": "GPL-2.0-or-later",
    "gpl-2.0": "GPL-2.0-only", "gpl-2.0+": "GPL-2.0-or-later", "gpl-3": "GPL-3.0-only",
    "gpl-3+": "GPL-3.0-or-later", "gpl-3.0+": "GPL-3.0-or-later", "gpl": "GPL-1.0-or-later",
    "lgpl-2": "LGPL-2.0-only", "lgpl-2+": "LGPL-2.0-or-later", "lgpl-2.1": "LGPL-2.1-only",
    "lgpl-2.1+": "LGPL-2.1-or-later", "lgpl-3": "LGPL-3.0-only", "lgpl-3+": "LGPL-3.0-or-later",
    "agpl-3+": "AGPL-3.0-or-later", "gfdl-1.3+": "GFDL-1.3-or-later", "gfdl-1.3": "GFDL-1.3-only",
    "bsd-2-clause": "BSD-2-Clause", "bsd-3-clause": "BSD-3-Clause", "bsd-4-clause": "BSD-4-Clause",
    "expat": "MIT", "mit": "MIT", "x11": "X11", "isc": "ISC", "zlib": "Zlib", "curl": "curl",
    "apache-2.0": "Apache-2.0", "apache-2": "Apache-2.0", "mpl-1.1": "MPL-1.1", "mpl-2.0": "MPL-2.0", "epl-1.0": "EPL-1.0",
    "epl-2.0": "EPL-2.0", "edl-1.0": "BSD-3-Clause", "openssl": "OpenSSL", "ssleay": "OpenSSL",
    "artistic": "Artistic-1.0-Perl", "cc0": "CC0-1.0", "cc0-1.0": "CC0-1.0", "ofl-1.1": "OFL-1.1",
    "bitstream-vera": "Bitstream-Vera", "ijg": "IJG", "libpng": "Libpng", "ftl": "FTL",
    "unicode-dfs-2016": "Unicode-DFS-2016", "icu": "ICU", "bzip2-1.0.6": "bzip2-1.0.6",
    "public-domain": None, "permissive": None,
}
extracted = {}


def license_ref(name):
    ref = "LicenseRef-Debian-" + re.sub(r"[^A-Za-z0-9.-]", "-", name)
    extracted[ref] = name
    return ref


def spdx_term(name):
    """One Debian license short name as an SPDX identifier (or a declared LicenseRef-)."""
    key = name.strip().lower()
    mapped = DEBIAN_TO_SPDX.get(key, "unknown")
    if mapped == "unknown" or mapped is None:
        return license_ref(name.strip())
    return mapped


def declared_license(package):
    """The license expression of a package's DEP-5 copyright file: every distinct License: name."""
    path = os.path.join(args.root, "usr/share/doc", package, "copyright")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return "NOASSERTION", "no copyright file"
    if not re.match(r"(?i)^format:\s*\S*(copyright-format|dep5|dep-5)", text):
        return "NOASSERTION", "copyright file not in Debian's machine-readable format"
    names = []
    for line in text.splitlines():
        match = re.match(r"(?i)^license:\s*(\S.*)$", line)
        if match:
            names.append(match.group(1).strip())
    terms = set()
    for name in names:
        # "GPL-2+ or LGPL-2.1+", "MPL-1.1 | GPL-2+": alternatives; "with X exception" kept out.
        name = re.split(r"(?i)\s+with\s+", name)[0]
        alternatives = [spdx_term(part) for part in re.split(r"(?i)\s+or\s+|\s*\|\s*", name) if part.strip()]
        alternatives = [a for a in alternatives if a]
        if alternatives:
            terms.add(alternatives[0] if len(alternatives) == 1 else "(" + " OR ".join(sorted(set(alternatives))) + ")")
    if not terms:
        return "NOASSERTION", "no License: line"
    return " AND ".join(sorted(terms)), "from the Debian copyright file's License: lines"


def dpkg_versions():
    versions = {}
    path = os.path.join(args.root, "var/lib/dpkg/status")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            stanzas = f.read().split("\n\n")
    except OSError as error:
        fail(f"cannot read {path}: {error}")
    for stanza in stanzas:
        fields = dict(re.findall(r"^([A-Za-z-]+):\s*(.*)$", stanza, re.M))
        if "Package" in fields and "install ok installed" in fields.get("Status", ""):
            versions[fields["Package"]] = fields.get("Version", "")
    return versions


def spdx_id(text):
    return "SPDXRef-" + re.sub(r"[^A-Za-z0-9.-]", "-", text)


if args.swift_version.startswith("from:"):
    try:
        with open(args.swift_version[5:]) as f:
            args.swift_version = [p["versionInfo"] for p in json.load(f)["packages"] if p["name"] == "swift-runtime"][0]
    except (OSError, ValueError, KeyError, IndexError) as error:
        fail(f"no Swift runtime version in {args.swift_version[5:]} ({error})")
if not re.fullmatch(r"[0-9]+(\.[0-9]+)*", args.swift_version):
    fail(f"--swift-version '{args.swift_version}' is not a version")
with open(args.file, "rb") as f:
    artifact_sha = hashlib.sha256(f.read()).hexdigest()
versions = dpkg_versions() if args.root else {}
main_id = spdx_id(f"{args.kind}-{args.name}")
artifact_name = os.path.basename(args.file)
packages = [
    {
        "SPDXID": main_id,
        "name": args.name,
        "versionInfo": args.version,
        "packageFileName": artifact_name,
        "supplier": "Organization: breeze-agent",
        "downloadLocation": "NOASSERTION",
        "filesAnalyzed": False,
        "checksums": [{"algorithm": "SHA256", "checksumValue": artifact_sha}],
        "licenseConcluded": "Apache-2.0",
        "licenseDeclared": "Apache-2.0",
        "copyrightText": "NOASSERTION",
        "primaryPackagePurpose": "CONTAINER" if args.kind == "image" else "APPLICATION",
    },
    {
        "SPDXID": spdx_id("swift-runtime"),
        "name": "swift-runtime",
        "versionInfo": args.swift_version,
        "supplier": "Organization: Swift project",
        "downloadLocation": "https://github.com/swiftlang/swift",
        "filesAnalyzed": False,
        "licenseConcluded": "NOASSERTION",
        "licenseDeclared": "Apache-2.0 WITH Swift-exception",
        "copyrightText": "NOASSERTION",
        "comment": "The Swift standard library and runtime, linked statically (--static-swift-stdlib).",
        "primaryPackagePurpose": "LIBRARY",
    },
]
relationships = [
    {"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES", "relatedSpdxElement": main_id},
    {"spdxElementId": main_id, "relationshipType": "CONTAINS", "relatedSpdxElement": spdx_id("swift-runtime")},
]
if args.like:
    try:
        with open(args.like) as f:
            like = json.load(f)
        inherited = [p for p in like["packages"] if p.get("supplier") == "Organization: Debian"]
        extracted.update({e["licenseId"]: e["name"] for e in like.get("hasExtractedLicensingInfos", [])})
    except (OSError, ValueError, KeyError) as error:
        fail(f"{args.like} is not an SBOM this script wrote ({error})")
    for package in inherited:
        packages.append(package)
        relationships.append({"spdxElementId": main_id, "relationshipType": args.relation, "relatedSpdxElement": package["SPDXID"]})
for package in sorted(set(args.package)):
    if package not in versions:
        fail(f"{package} is not installed in {args.root}")
    declared, how = declared_license(package)
    pid = spdx_id("deb-" + package)
    packages.append(
        {
            "SPDXID": pid,
            "name": package,
            "versionInfo": versions[package],
            "supplier": "Organization: Debian",
            "downloadLocation": "NOASSERTION",
            "filesAnalyzed": False,
            "licenseConcluded": "NOASSERTION",
            "licenseDeclared": declared,
            "licenseComments": how,
            "copyrightText": "NOASSERTION",
            "externalRefs": [
                {
                    "referenceCategory": "PACKAGE-MANAGER",
                    "referenceType": "purl",
                    "referenceLocator": f"pkg:deb/debian/{package}@{versions[package]}?arch={args.arch}&distro={args.distro}",
                }
            ],
            "primaryPackagePurpose": "LIBRARY",
        }
    )
    relationships.append({"spdxElementId": main_id, "relationshipType": args.relation, "relatedSpdxElement": pid})

document = {
    "spdxVersion": "SPDX-2.3",
    "dataLicense": "CC0-1.0",
    "SPDXID": "SPDXRef-DOCUMENT",
    "name": f"{artifact_name}",
    "documentNamespace": f"https://breeze-agent.invalid/spdx/{artifact_name}-{artifact_sha}",
    "creationInfo": {
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(args.epoch)),
        "creators": ["Tool: breeze-agent-scripts/sbom.py", "Organization: breeze-agent"],
    },
    "documentDescribes": [main_id],
    "packages": packages,
    "relationships": relationships,
}
if extracted:
    document["hasExtractedLicensingInfos"] = [
        {
            "licenseId": ref,
            "name": name,
            "extractedText": f"The license Debian's copyright files call \"{name}\"; see the package's /usr/share/doc/<package>/copyright.",
        }
        for ref, name in sorted(extracted.items())
    ]
with open(args.out + ".tmp", "w") as f:
    json.dump(document, f, indent=1, sort_keys=True)
    f.write("\n")
os.replace(args.out + ".tmp", args.out)
print(f"sbom: {args.out}: {len(packages)} packages ({len(packages) - 2} Debian, {args.relation})", file=sys.stderr)
