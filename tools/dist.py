"""make dist: what a release ships, and the mip package descriptions.

    python tools/dist.py [--arch xtensawin] [--out build/dist] [--firmware FILE]
    python tools/dist.py --descriptions     # write package.json and lib/<part>.json

The library installs on stock MicroPython with mip (mpremote's, or the
board's own `mip` module) in micropython-lib's formats:

1. Package descriptions, committed, for `mpremote mip install
   github:OWNER/REPO` (everything: the root package.json) or a part
   (github:OWNER/REPO/lib/<part>.json): {"urls": [[target path under
   the board's /lib, URL relative to the description], ...], "version"}.
   mip resolves a relative URL against the description's own address,
   but "deps" only as an index name or a full github:/http: address,
   which a committed file cannot know (it would name one fork): so a
   part's description lists the files of the parts it needs as well, and
   has no deps. These files are generated (--descriptions);
   host_tests/test_dist.py holds them equal to PARTS.

2. An index, built by make dist into OUT/mip-ARCH/, served by any web
   server and installed with `mpremote mip install --index URL PART`
   (--no-mpy for the .py sources):
     index.json                          {"v": 2, "updated", "packages":
                                          [{"name", "version", "author",
                                          "description", "license",
                                          "versions": {"6": [...], "py":
                                          [...]}, "path"}]}
     package/6/PART/latest.json          {"v": 1, "hashes": [[target, short
     package/6/PART/VERSION.json          hash], ...], "deps": [[PART,
     package/py/PART/...                  VERSION], ...], "version"}
     file/HH/HASH                        each file's bytes, named by the
                                         first 8 hex digits of its SHA-256
   "6" is the .mpy version (mpremote asks for sys.implementation._mpy &
   0xFF); the .mpy files are compiled with -march=ARCH, as jsonstream's
   native code must match the board (xtensawin: ESP32 and ESP32-S3), so
   each architecture has an index of its own; here deps are parts by name.

Also in OUT: antos-ai-VERSION-ARCH.zip (lib/ as .mpy, to copy by hand:
`mpremote cp -r`), the firmware image when one is given and built
(--firmware; make dist passes MICROPY_DIR's), and SHA256SUMS over all of
it (`cd OUT && sha256sum -c SHA256SUMS`). VERSION is compat.VERSION.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "lib")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from mpybuild import compile_tree, mpy_cross  # noqa: E402

# part: (what it is, files and folders under lib/, the parts it needs)
PARTS = (
    ("compat", "the few MicroPython/CPython differences, and the console's hooks",
     ("compat.py", "hooks.py"), ()),
    ("jsonstream", "streaming JSON reader and writer", ("jsonstream.py",), ("compat",)),
    ("store", "settings and files on flash, written atomically", ("store/",), ("jsonstream",)),
    ("httpc", "HTTP/1.1 client: keep-alive, chunked, verified TLS, SSE",
     ("httpc/", "cacerts.py"), ("compat",)),
    ("mcp", "MCP client (Streamable HTTP, OAuth 2.1)", ("mcp/",), ("httpc", "store")),
    ("ai", "LLM providers, tool calling, chat history on flash", ("ai/",), ("mcp",)),
    ("shell", "the serial console, and the board as an MCP server",
     ("shell/", "mcpserver/"), ("ai",)),
)
# committed descriptions: lib/<part>.json for these, package.json for all
DESCRIBED = ("jsonstream", "store", "httpc", "mcp", "ai")
AUTHOR = "AntOS AI firmware"
LICENSE = "MIT"


def version():
    with open(os.path.join(LIB, "compat.py")) as f:
        return re.search(r'^VERSION = "([^"]+)"', f.read(), re.M).group(1)


def part(name):
    for p in PARTS:
        if p[0] == name:
            return p
    raise KeyError(name)


def own_files(name):
    """The .py files (paths under lib/, sorted) of one part."""
    found = []
    for entry in part(name)[2]:
        if entry.endswith("/"):
            for d, _, files in os.walk(os.path.join(LIB, entry)):
                for f in files:
                    if f.endswith(".py"):
                        found.append(os.path.relpath(os.path.join(d, f), LIB).replace(os.sep, "/"))
        else:
            found.append(entry)
    return sorted(found)


def needs(name):
    """The part and every part it needs, each once, dependencies first."""
    order = []

    def visit(n):
        if n not in order:
            for d in part(n)[3]:
                visit(d)
            order.append(n)
    visit(name)
    return order


def files(name):
    """Every file a part installs (its own and those of the parts it needs)."""
    out = []
    for n in needs(name):
        out += own_files(n)
    return out


def descriptions():
    """{path in the repository: description} of the committed ones."""
    v = version()
    d = {"package.json": {"urls": [[f, "lib/" + f] for f in files("shell")], "version": v}}
    for name in DESCRIBED:
        d["lib/%s.json" % name] = {"urls": [[f, f] for f in files(name)], "version": v}
    return d


def as_text(obj):
    """A description as committed: one url pair per line."""
    lines = ["{", '  "urls": [']
    urls = obj["urls"]
    for i, u in enumerate(urls):
        lines.append("    %s%s" % (json.dumps(u), "," if i < len(urls) - 1 else ""))
    lines += ["  ],", '  "version": %s' % json.dumps(obj["version"]), "}"]
    return "\n".join(lines) + "\n"


def write_descriptions():
    for path, obj in descriptions().items():
        with open(os.path.join(ROOT, path), "w") as f:
            f.write(as_text(obj))
        print("wrote %s (%d files)" % (path, len(obj["urls"])))


# ---------------------------------------------------------------- make dist

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(65536), b""):
            h.update(block)
    return h.hexdigest()


def mpy_version():
    out = subprocess.run([mpy_cross(), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"mpy v(\d+)", out)
    if not m:
        raise SystemExit("dist: cannot tell mpy-cross's .mpy version from %r" % out)
    return m.group(1)


def _hashed(src, file_dir):
    """Copy src to file_dir/HH/HASH (8 hex digits); -> the short hash."""
    short = sha256(src)[:8]
    dst = os.path.join(file_dir, short[:2], short)
    if os.path.exists(dst):
        with open(dst, "rb") as a, open(src, "rb") as b:
            if a.read() != b.read():
                raise SystemExit("dist: two files share the hash prefix %s" % short)
    else:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
    return short


def _json(obj, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")


def build(arch, out, firmware=None, stamp=None):
    """OUT: the .mpy bundle, the mip index for arch, the firmware image
    (when given) and SHA256SUMS. -> the list of files summed."""
    v = version()
    mpyv = mpy_version()
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    index = os.path.join(out, "mip-" + arch)
    with tempfile.TemporaryDirectory() as tmp:
        compiled = os.path.join(tmp, "lib")
        errors = compile_tree(LIB, compiled, arch)
        if errors:
            raise SystemExit("\n".join("dist: %s: %s" % e for e in errors))
        bundle = os.path.join(out, "antos-ai-%s-%s.zip" % (v, arch))
        with zipfile.ZipFile(bundle, "w", zipfile.ZIP_DEFLATED) as z:
            for f in files("shell"):
                mpy = f[:-3] + ".mpy"
                info = zipfile.ZipInfo("lib/" + mpy, (2026, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(os.path.join(compiled, mpy), "rb") as src:
                    z.writestr(info, src.read())
        packages = []
        for name, about, _, deps in PARTS:
            for kind in (mpyv, "py"):
                hashes = []
                for f in own_files(name):
                    target = f if kind == "py" else f[:-3] + ".mpy"
                    src = os.path.join(LIB if kind == "py" else compiled, target)
                    hashes.append([target, _hashed(src, os.path.join(index, "file"))])
                pkg = {"v": 1, "hashes": hashes, "deps": [[d, v] for d in deps], "version": v}
                for tag in ("latest", v):
                    _json(pkg, os.path.join(index, "package", kind, name, tag + ".json"))
            packages.append({"name": name, "version": v, "author": AUTHOR,
                             "description": about, "license": LICENSE,
                             "versions": {mpyv: [v], "py": [v]},
                             "path": "lib/" + part(name)[2][0].rstrip("/")})
        _json({"v": 2, "updated": stamp if stamp is not None else 0, "packages": packages},
              os.path.join(index, "index.json"))
    if firmware:
        shutil.copyfile(firmware, os.path.join(out, os.path.basename(firmware)))
    summed = []
    for d, _, names in os.walk(out):
        for n in names:
            summed.append(os.path.relpath(os.path.join(d, n), out).replace(os.sep, "/"))
    summed.sort()
    with open(os.path.join(out, "SHA256SUMS"), "w") as f:
        for rel in summed:
            f.write("%s  %s\n" % (sha256(os.path.join(out, rel)), rel))
    return summed


def main(argv):
    arch, out, firmware = "xtensawin", os.path.join(ROOT, "build", "dist"), None
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--descriptions":
            write_descriptions()
            return 0
        if a == "--arch" and args:
            arch = args.pop(0)
        elif a == "--out" and args:
            out = os.path.abspath(args.pop(0))
        elif a == "--firmware" and args:
            firmware = args.pop(0)
        else:
            print("usage: dist.py [--arch xtensawin] [--out build/dist] [--firmware FILE]"
                  " | dist.py --descriptions")
            return 2
    if firmware and not os.path.exists(firmware):
        print("dist: no firmware image at %s (make firmware builds it); leaving it out" % firmware)
        firmware = None
    summed = build(arch, out, firmware)
    for rel in summed:
        if "/" not in rel:
            print("dist: %s" % os.path.join(os.path.relpath(out, ROOT), rel))
    print("dist: %s/mip-%s: the mip index (%d parts, version %s); SHA256SUMS: %d files" % (
        os.path.relpath(out, ROOT), arch, len(PARTS), version(), len(summed)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
