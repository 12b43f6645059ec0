#!/bin/sh
echo "dissect: coverage tools are not available offline" >&2
exit 1
