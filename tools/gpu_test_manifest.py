#!/usr/bin/env python3
"""Reads `bazel query --output=xml` of the GPU tests on stdin.

Default: prints one line per test, the binary's name, then its BUILD args,
shell-quoted, so that tools/device_checks.sh can run the bundled tests as
Bazel would on a machine without Bazel.

--smoke: prints one line per test made by dissect_experiment (tag
dissect_smoke_of=<experiment>): the test's name and the label of its
experiment binary. tools/bundle.sh bundles that binary once and gives the
test a two-line wrapper running `<experiment> --smoke ARGS`, instead of a
second static binary of the same code."""

import shlex
import sys
import xml.etree.ElementTree as ET

SMOKE_TAG = "dissect_smoke_of="


def string_list(rule, attribute_name):
    for attribute in rule.findall("list"):
        if attribute.get("name") == attribute_name:
            return [s.get("value") for s in attribute.findall("string")]
    return []


def main():
    smoke = sys.argv[1:] == ["--smoke"]
    if sys.argv[1:] and not smoke:
        sys.exit("usage: gpu_test_manifest.py [--smoke] < query.xml")
    root = ET.parse(sys.stdin).getroot()
    for rule in root.iter("rule"):
        label = rule.get("name")
        name = label.rsplit(":", 1)[-1]
        if not smoke:
            args = string_list(rule, "args")
            print(" ".join([name] + [shlex.quote(a) for a in args]))
            continue
        for tag in string_list(rule, "tags"):
            if tag.startswith(SMOKE_TAG):
                package = label.rsplit(":", 1)[0]
                print(name, "%s:%s" % (package, tag[len(SMOKE_TAG):]))


if __name__ == "__main__":
    main()
