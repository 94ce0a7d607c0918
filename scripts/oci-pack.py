#!/usr/bin/env python3
# Packs a root directory into a single-layer OCI image archive (the oci-archive `podman load`
# reads: an OCI image layout — oci-layout, index.json, blobs/sha256/… — in a tar), written
# here so that `make image` needs no registry, base image or container storage. Used by
# scripts/image.sh. The layer is reproducible: entries sorted, owners numeric, times = --epoch.
#
# With --base ARCHIVE --dockerfile FILE (scripts/addon-image.sh) it derives an image instead:
# the base archive's layers unchanged (the same blobs, so the two images share storage) and its
# config with FILE's metadata instructions applied — ARG, LABEL, ENV, USER, WORKDIR, ENTRYPOINT
# and CMD (exec form), VOLUME, STOPSIGNAL — as `docker build` applies them on top of
# its last FROM; a RUN, COPY or ADD (anything that changes files) is refused, as is a variable
# the file does not declare. The Dockerfile stays the one description of the add-on image.
#
# With --index ARCHIVE... (scripts/release.sh) it writes one archive holding an OCI image index
# over the given single-architecture archives (one name for amd64 and arm64, what `skopeo copy
# --all` pushes and `podman pull --arch` resolves): their blobs unchanged, an index blob listing
# each manifest with its platform, and index.json naming that index with --tag.
import argparse
import gzip
import hashlib
import io
import json
import os
import re
import shlex
import sys
import tarfile
import time

parser = argparse.ArgumentParser()
parser.add_argument("--root", help="the directory to pack (not with --base)")
parser.add_argument("--base", help="an OCI archive this script wrote, to derive from (with --dockerfile)")
parser.add_argument("--dockerfile", help="whose metadata instructions are applied to --base's config")
parser.add_argument("--build-arg", action="append", default=[], metavar="NAME=VALUE")
parser.add_argument("--index", nargs="+", metavar="ARCHIVE", help="single-architecture archives to put under one image index")
parser.add_argument("--arch", choices=["amd64", "arm64"])
parser.add_argument("--tag", required=True)
parser.add_argument("--version", help="the image's version label (with --root)")
parser.add_argument("--user", help="uid:gid the container runs as (with --root)")
parser.add_argument("--epoch", type=int, required=True)
parser.add_argument("--out", required=True)
args = parser.parse_args()
if args.index:
    if args.root or args.base or args.dockerfile or args.arch:
        parser.error("--index takes no --root, --base, --dockerfile or --arch")
elif bool(args.root) == bool(args.base) or bool(args.base) != bool(args.dockerfile):
    parser.error("give --root (with --user, --version), or --base with --dockerfile, or --index")
elif not args.arch:
    parser.error("--arch is required with --root or --base")
if args.root and not (args.user and args.version):
    parser.error("--root needs --user and --version")


def fail(message):
    print(f"oci-pack: {message}", file=sys.stderr)
    sys.exit(1)


def layer_tar(root, epoch):
    """The root as an uncompressed tar, in sorted order, numeric owners, fixed mtimes."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        paths = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(dirnames + filenames):
                paths.append(os.path.join(dirpath, name))
        for path in sorted(paths, key=lambda p: os.path.relpath(p, root)):
            info = tar.gettarinfo(path, arcname=os.path.relpath(path, root))
            info.mtime = epoch
            info.uname = info.gname = ""
            if info.isreg():
                with open(path, "rb") as f:
                    tar.addfile(info, f)
            else:
                tar.addfile(info)
    return buf.getvalue()


def descriptor(media_type, digest, size):
    return {"mediaType": media_type, "digest": "sha256:" + digest, "size": size}


def blob(data):
    digest = hashlib.sha256(data).hexdigest()
    return digest, len(data), (f"blobs/sha256/{digest}", data)


def read_base(path):
    """The base archive's config (a dict) and its layers: [(descriptor, gzip data)]."""
    try:
        with tarfile.open(path) as tar:
            def member(name):
                return tar.extractfile(name).read()

            index = json.loads(member("index.json"))
            manifest = json.loads(member("blobs/sha256/" + index["manifests"][0]["digest"].split(":")[1]))
            config = json.loads(member("blobs/sha256/" + manifest["config"]["digest"].split(":")[1]))
            layers = [(d, member("blobs/sha256/" + d["digest"].split(":")[1])) for d in manifest["layers"]]
            ref = index["manifests"][0].get("annotations", {}).get("org.opencontainers.image.ref.name", "")
    except (OSError, KeyError, IndexError, ValueError, tarfile.TarError, AttributeError) as error:
        fail(f"{path} is not an OCI archive written by this script ({error})")
    return config, layers, ref


VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def dockerfile_instructions(path):
    """(line number, KEYWORD, rest) per instruction: continuation lines joined, comments dropped."""
    try:
        lines = open(path, encoding="utf-8").read().split("\n")
    except OSError as error:
        fail(f"cannot read {path}: {error.strerror}")
    result, text, first = [], None, 0
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("#") or (text is None and not line.strip()):
            continue
        if text is None:
            text, first = "", number
        stripped = line.rstrip()
        if stripped.endswith("\\"):
            text += stripped[:-1] + " "
            continue
        text += stripped
        keyword, _, rest = text.strip().partition(" ")
        result.append((first, keyword.upper(), rest.strip()))
        text = None
    return result


def apply_dockerfile(path, base_config, base_ref, build_args):
    """base_config with the final stage's metadata instructions applied, as `docker build` would."""
    given = {}
    for item in build_args:
        name, sep, value = item.partition("=")
        if not sep:
            fail(f"--build-arg {item}: expected NAME=VALUE")
        given[name] = value
    # ARGs before the first FROM are global: usable in FROM lines, and inside a stage once it
    # declares them again (`ARG NAME`); each stage starts with no variables of its own.
    global_vars, variables, declared, stages, stage_base = {}, None, set(), {}, None
    config = json.loads(json.dumps(base_config["config"]))
    instructions = dockerfile_instructions(path)
    last_from = max((i for i, (_, k, _) in enumerate(instructions) if k == "FROM"), default=None)
    if last_from is None:
        fail(f"{path}: no FROM")

    def where(number):
        return f"{path}:{number}"

    def expand(text, number, scope):
        if "'" in text and "$" in text:
            fail(f"{where(number)}: $ inside single quotes is not supported here")

        def value(match):
            name = match.group(1) or match.group(2)
            if name not in scope:
                fail(f"{where(number)}: ${name} is not declared (ARG or ENV) in this stage before this line")
            return scope[name]

        return VARIABLE.sub(value, text)

    def pairs(rest, number, keyword):
        result = []
        for token in shlex.split(expand(rest, number, variables)):
            key, sep, value = token.partition("=")
            if not sep:
                fail(f"{where(number)}: {keyword} {token}: expected KEY=VALUE pairs")
            result.append((key, value))
        return result

    def exec_form(rest, number, keyword):
        try:
            value = json.loads(rest)
        except ValueError:
            value = None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            fail(f"{where(number)}: {keyword} must be a JSON list of strings (the image has no shell)")
        return value

    for index, (number, keyword, rest) in enumerate(instructions):
        if keyword == "ARG":
            name, sep, default = rest.partition("=")
            declared.add(name)
            if name in given:
                value = given[name]
            elif sep:
                value = default.strip('"')
            else:
                value = global_vars.get(name) if variables is not None else None
            if value is None:
                fail(f"{where(number)}: ARG {name} has no value (pass --build-arg {name}=…)")
            (global_vars if variables is None else variables)[name] = value
        elif keyword == "FROM":
            words = expand(rest, number, global_vars).split()
            image = words[0]
            if len(words) == 3 and words[1].upper() == "AS":
                stages[words[2]] = stages.get(image, image)
            if index == last_from:
                stage_base = stages.get(image, image)
            variables = {}
        elif index < last_from:
            fail(f"{where(number)}: {keyword} in an earlier stage: only the last stage is applied")
        elif keyword == "LABEL":
            config.setdefault("Labels", {}).update(pairs(rest, number, keyword))
        elif keyword == "ENV":
            env = dict(e.split("=", 1) for e in config.get("Env", []))
            for key, value in pairs(rest, number, keyword):
                env[key] = value
                variables[key] = value
            config["Env"] = [f"{k}={v}" for k, v in env.items()]
        elif keyword == "USER":
            config["User"] = expand(rest, number, variables)
        elif keyword == "WORKDIR":
            config["WorkingDir"] = expand(rest, number, variables)
        elif keyword == "STOPSIGNAL":
            config["StopSignal"] = expand(rest, number, variables)
        elif keyword == "VOLUME":
            volumes = exec_form(rest, number, keyword) if rest.startswith("[") else expand(rest, number, variables).split()
            for volume in volumes:
                config.setdefault("Volumes", {})[volume] = {}
        elif keyword == "ENTRYPOINT":
            config["Entrypoint"] = exec_form(rest, number, keyword)
            config.pop("Cmd", None)  # as docker build: a new entrypoint drops the base's CMD
        elif keyword == "CMD":
            config["Cmd"] = exec_form(rest, number, keyword)
            if not config["Cmd"]:
                del config["Cmd"]
        else:
            fail(f"{where(number)}: {keyword} is not applied by this packer (metadata instructions only)")
    unused = sorted(set(given) - declared)
    if unused:
        fail(f"{path} declares no ARG {', '.join(unused)}")
    # The stage the file builds on must be the base given: the same tag (e.g. 0.1.0-arm64).
    if stage_base.rpartition(":")[2] != base_ref.rpartition(":")[2]:
        fail(f"{path} builds on {stage_base}, but the base archive is {base_ref}")
    return config


def write_archive(files, out, epoch):
    """The OCI layout as a tar: directories first, then every file sorted, fixed times and modes."""
    tmp = out + ".tmp"
    with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as tar:
        for directory in ["blobs", "blobs/sha256"]:
            info = tarfile.TarInfo(directory)
            info.type = tarfile.DIRTYPE
            info.mode = 0o755
            info.mtime = epoch
            tar.addfile(info)
        for name, data in sorted(files):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            info.mtime = epoch
            tar.addfile(info, io.BytesIO(data))
    os.replace(tmp, out)


def platform_of(config):
    return {
        "architecture": config["architecture"],
        "os": config["os"],
        **({"variant": config["variant"]} if config.get("variant") else {}),
    }


OCI_LAYOUT = ("oci-layout", b'{"imageLayoutVersion":"1.0.0"}')

if args.index:
    blobs = {}
    entries = []
    for path in args.index:
        try:
            with tarfile.open(path) as tar:
                for member in tar.getmembers():
                    if member.isreg() and member.name.startswith("blobs/sha256/"):
                        blobs[member.name] = tar.extractfile(member).read()
                top = json.loads(tar.extractfile("index.json").read())
        except (OSError, KeyError, ValueError, tarfile.TarError, AttributeError) as error:
            fail(f"{path} is not an OCI archive written by this script ({error})")
        if len(top.get("manifests", [])) != 1:
            fail(f"{path} holds {len(top.get('manifests', []))} manifests, not one image")
        entry = top["manifests"][0]
        manifest = json.loads(blobs["blobs/sha256/" + entry["digest"].split(":")[1]])
        config = json.loads(blobs["blobs/sha256/" + manifest["config"]["digest"].split(":")[1]])
        platform = platform_of(config)
        if any(e["platform"] == platform for e in entries):
            fail(f"{path}: a second image for {platform}")
        entries.append({**descriptor(entry["mediaType"], entry["digest"].split(":")[1], entry["size"]), "platform": platform})
    image_index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": entries}
    index_digest, index_size, index_entry = blob(json.dumps(image_index, sort_keys=True, separators=(",", ":")).encode())
    files = sorted(blobs.items()) + [index_entry, OCI_LAYOUT]
    top = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [
            {
                **descriptor("application/vnd.oci.image.index.v1+json", index_digest, index_size),
                "annotations": {"org.opencontainers.image.ref.name": args.tag},
            }
        ],
    }
    files.append(("index.json", json.dumps(top, sort_keys=True, separators=(",", ":")).encode()))
    write_archive(files, args.out, args.epoch)
    platforms = ", ".join("/".join(e["platform"].values()) for e in entries)
    print(f"oci-pack: {args.out}: index {index_digest[:12]} over {len(entries)} images ({platforms})")
    sys.exit(0)

files = []
if args.root:
    raw = layer_tar(args.root, args.epoch)
    diff_id = "sha256:" + hashlib.sha256(raw).hexdigest()
    gz = gzip.compress(raw, compresslevel=9, mtime=0)
    layer_digest, layer_size, entry = blob(gz)
    files.append(entry)
    layers = [descriptor("application/vnd.oci.image.layer.v1.tar+gzip", layer_digest, layer_size)]
    uncompressed = len(raw)
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(args.epoch))
    config = {
        "created": created,
        "architecture": args.arch,
        "os": "linux",
        **({"variant": "v8"} if args.arch == "arm64" else {}),
        "config": {
            "User": args.user,
            "Entrypoint": ["/usr/bin/breeze-agent"],
            "Cmd": ["run", "--config", "/config/config.yaml"],
            # BREEZE_CONFIG: `docker run <image> forget` (or check-config) reads the same file as run.
            "Env": ["PATH=/usr/bin:/bin", "BREEZE_CONFIG=/config/config.yaml", "BREEZE_LOG_STREAM=stdout"],
            "WorkingDir": "/data",
            "Volumes": {"/data": {}},
            "StopSignal": "SIGTERM",
            "Labels": {
                "org.opencontainers.image.title": "breeze-agent",
                "org.opencontainers.image.version": args.version,
                "org.opencontainers.image.licenses": "Apache-2.0",
            },
        },
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        "history": [{"created": created, "created_by": "scripts/image.sh (Debian 12 packages, distroless closure)"}],
    }
else:
    base_config, base_layers, base_ref = read_base(args.base)
    if base_config.get("architecture") != args.arch:
        fail(f"{args.base} is an {base_config.get('architecture')} image, not {args.arch}")
    layers = []
    uncompressed = 0
    for layer_descriptor, data in base_layers:
        files.append((f"blobs/sha256/{layer_descriptor['digest'].split(':')[1]}", data))
        layers.append(layer_descriptor)
        uncompressed += len(gzip.decompress(data))
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(args.epoch))
    config = dict(base_config)
    config["created"] = created
    config["config"] = apply_dockerfile(args.dockerfile, base_config, base_ref, args.build_arg)
    config["history"] = base_config.get("history", []) + [
        {
            "created": created,
            "created_by": f"scripts/oci-pack.py: {args.dockerfile}'s metadata over {base_ref}",
            "empty_layer": True,
        }
    ]


def add_json(obj):
    """Stores obj as a compact JSON blob; its digest and size."""
    digest, size, entry = blob(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode())
    files.append(entry)
    return digest, size


config_digest, config_size = add_json(config)
manifest = {
    "schemaVersion": 2,
    "mediaType": "application/vnd.oci.image.manifest.v1+json",
    "config": descriptor("application/vnd.oci.image.config.v1+json", config_digest, config_size),
    "layers": layers,
}
manifest_digest, manifest_size = add_json(manifest)
index = {
    "schemaVersion": 2,
    "mediaType": "application/vnd.oci.image.index.v1+json",
    "manifests": [
        {
            **descriptor("application/vnd.oci.image.manifest.v1+json", manifest_digest, manifest_size),
            "platform": platform_of(config),
            "annotations": {"org.opencontainers.image.ref.name": args.tag},
        }
    ],
}
files.append(("index.json", json.dumps(index, sort_keys=True, separators=(",", ":")).encode()))
files.append(OCI_LAYOUT)
write_archive(files, args.out, args.epoch)
print(
    f"oci-pack: {args.out}: {len(layers)} layer(s), {uncompressed / 1e6:.1f} MB uncompressed,"
    f" {sum(d['size'] for d in layers) / 1e6:.1f} MB gzip; config {config_digest[:12]}"
)
