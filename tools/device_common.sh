# Sourced by tools/reference_run.sh and tools/device_checks.sh on the GPU
# machine, in the repository root with the unpacked bundle (dist/) there.
# Sets LD_LIBRARY_PATH, writes OUTDIR/MACHINE (commit, time, GPU and clocks
# as nvidia-smi reports them) and defines record(): a command line appended
# verbatim to OUTDIR/COMMANDS before it runs, its output into a log file.

# dist/lib first; the toolkit's lib64 for cuBLAS and CUPTI, not bundled.
export LD_LIBRARY_PATH="${PWD}/dist/lib:${CUDA_PATH:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"

write_machine() {  # write_machine OUTDIR
  {
    echo "# commit $(cat dist/COMMIT 2>/dev/null || echo unknown), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
      --format=csv 2>&1
  } > "$1/MACHINE"
}

record() {  # record OUTDIR LOG COMMAND...: log the command line, run it into LOG
  local out=$1 log=$2
  shift 2
  echo "$*" >> "${out}/COMMANDS"
  echo "== $*" >&2
  "$@" > "${log}" 2>&1
}
