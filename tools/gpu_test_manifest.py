#!/usr/bin/env python3
"""Reads `bazel query --output=xml` of the GPU tests on stdin and prints one
line per test: the binary's name, then its BUILD args, shell-quoted, so that
tools/device_checks.sh can run the bundled tests as Bazel would on a machine
without Bazel."""

import shlex
import sys
import xml.etree.ElementTree as ET


def main():
    root = ET.parse(sys.stdin).getroot()
    for rule in root.iter("rule"):
        name = rule.get("name").rsplit(":", 1)[-1]
        args = []
        for attribute in rule.findall("list"):
            if attribute.get("name") == "args":
                args = [s.get("value") for s in attribute.findall("string")]
        print(" ".join([name] + [shlex.quote(a) for a in args]))


if __name__ == "__main__":
    main()
