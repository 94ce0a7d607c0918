#!/usr/bin/env python3
# Packs a root directory into a single-layer OCI image archive (the oci-archive `podman load`
# reads: an OCI image layout — oci-layout, index.json, blobs/sha256/… — in a tar), written
# here so that `make image` needs no registry, base image or container storage. Used by
# scripts/image.sh. The layer is reproducible: entries sorted, owners numeric, times = --epoch.
import argparse
import gzip
import hashlib
import io
import json
import os
import tarfile
import time

parser = argparse.ArgumentParser()
parser.add_argument("--root", required=True)
parser.add_argument("--arch", required=True, choices=["amd64", "arm64"])
parser.add_argument("--tag", required=True)
parser.add_argument("--version", required=True)
parser.add_argument("--user", required=True, help="uid:gid the container runs as")
parser.add_argument("--epoch", type=int, required=True)
parser.add_argument("--out", required=True)
args = parser.parse_args()


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


raw = layer_tar(args.root, args.epoch)
diff_id = "sha256:" + hashlib.sha256(raw).hexdigest()
gz = gzip.compress(raw, compresslevel=9, mtime=0)
files = []
layer_digest, layer_size, entry = blob(gz)
files.append(entry)

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
        "Env": ["PATH=/usr/bin:/bin", "BREEZE_LOG_STREAM=stdout"],
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
    "layers": [descriptor("application/vnd.oci.image.layer.v1.tar+gzip", layer_digest, layer_size)],
}
manifest_digest, manifest_size = add_json(manifest)
index = {
    "schemaVersion": 2,
    "mediaType": "application/vnd.oci.image.index.v1+json",
    "manifests": [
        {
            **descriptor("application/vnd.oci.image.manifest.v1+json", manifest_digest, manifest_size),
            "platform": {"architecture": args.arch, "os": "linux"},
            "annotations": {"org.opencontainers.image.ref.name": args.tag},
        }
    ],
}
files.append(("index.json", json.dumps(index, sort_keys=True, separators=(",", ":")).encode()))
files.append(("oci-layout", b'{"imageLayoutVersion":"1.0.0"}'))

tmp = args.out + ".tmp"
with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as tar:
    for directory in ["blobs", "blobs/sha256"]:
        info = tarfile.TarInfo(directory)
        info.type = tarfile.DIRTYPE
        info.mode = 0o755
        info.mtime = args.epoch
        tar.addfile(info)
    for name, data in sorted(files):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        info.mode = 0o644
        info.mtime = args.epoch
        tar.addfile(info, io.BytesIO(data))
os.replace(tmp, args.out)
print(f"oci-pack: {args.out}: layer {len(raw)} bytes uncompressed, {layer_size} gzip; config {config_digest[:12]}")
