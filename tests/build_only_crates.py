"""The dependencies that only run while Pillbox is built: proc macros, build scripts and what
only they use (syn, serde_derive, utoipa-gen, askama's parser, cc, …). Cargo.toml compiles
them unoptimised in the dev profile, while every other dependency is optimised (opt-level 1):
optimising them cost about 110 s of compile on a fresh two-core machine and saved nothing, as
the pillbox crate whose macros they expand took as long to compile either way.

Prints the list as Cargo.toml writes it. With --check, fails when Cargo.toml's list differs
(a dependency added or dropped): then paste what this prints into Cargo.toml.

Usage: python3 tests/build_only_crates.py [--check]
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN = "# build-only crates: begin"
END = "# build-only crates: end"


def build_only():
    metadata = json.loads(subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked",
         "--filter-platform", "x86_64-unknown-linux-gnu"],
        cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout)
    packages = {p["id"]: p for p in metadata["packages"]}
    nodes = {n["id"]: n for n in metadata["resolve"]["nodes"]}

    def proc_macro(package):
        return any("proc-macro" in t["kind"] for t in packages[package]["targets"])

    # What the binary and its tests run: normal and dev edges, not into a proc macro (which
    # runs in the compiler) nor along build edges (a build script's).
    running, stack = set(), [metadata["resolve"]["root"]]
    while stack:
        package = stack.pop()
        if package in running:
            continue
        running.add(package)
        for dep in nodes[package]["deps"]:
            kinds = {k["kind"] for k in dep["dep_kinds"]}
            if kinds & {None, "dev"} and not proc_macro(dep["pkg"]):
                stack.append(dep["pkg"])
    run_names = {packages[p]["name"] for p in running}
    return sorted({packages[p]["name"] for p in nodes if p not in running} - run_names)


def listed():
    with open(os.path.join(ROOT, "Cargo.toml")) as f:
        text = f.read()
    block = text.split(BEGIN, 1)[1].split(END, 1)[0]
    return re.findall(r'^"?([A-Za-z0-9_-]+)"?\.opt-level = 0$', block, re.M)


def main():
    names = build_only()
    lines = [f"{name}.opt-level = 0" for name in names]
    if "--check" not in sys.argv:
        print("\n".join(lines))
        return
    if listed() != names:
        sys.exit("Cargo.toml's build-only crates differ from the dependencies': replace the lines "
                 "between its `" + BEGIN + "` and `" + END + "` with what "
                 "`python3 tests/build_only_crates.py` prints")
    print(f"Cargo.toml lists the {len(names)} build-only crates")


if __name__ == "__main__":
    main()
