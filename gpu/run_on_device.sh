#!/bin/bash
# Runs ON THE H200 from the repo root:  export OUT; bash gpu/run_on_device.sh ENGINE [ENGINE...]   (vllm | sglang)
# Lands the carried engine packs (.gpu/device_run.sh, the recipe in ../shared/gpu), then runs each engine's driver
# from .carry_run/ENGINE (written here by gpu/prepare.py) under the probes and packs its trace folder into
# $OUT/ENGINE.tar.xz (shards, result.json, engine.log); `python gpu/collect.py` turns it into results/ here.
set -u
OUT=${OUT:-/tmp/out}; R=.carry_run
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
export SGLANG_DISABLE_REQUEST_LOGGING=1 TOKENIZERS_PARALLELISM=false VLLM_USE_FLASHINFER_SAMPLER=0
bash .gpu/device_run.sh > $OUT/land.log 2>&1; tail -3 $OUT/land.log
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
for fw in "$@"; do
  case $fw in vllm) SITE=/tmp/site_vllm:/tmp/site_common;; sglang) SITE=/tmp/site_sgl:/tmp/site_common;; *) echo "unknown $fw"; continue;; esac
  T=/tmp/trace_$fw; rm -rf $T; mkdir -p $T/shards
  echo "[$(date +%T)] BEGIN $fw"
  env PYTHONPATH=$R/$fw/_boot:$SITE ATLAS_PROBES=$R/$fw/spec.json ATLAS_TRACE_DIR=$T ATLAS_MODEL=$PWD/$R/models/qwen3-0.6b \
    timeout -k 10 ${LIMIT:-480} python3 $R/$fw/_boot/drivers/${fw}_driver.py $R/$fw/engine.config.json > $T/engine.log 2>&1
  echo "[$(date +%T)] END $fw rc=$?"; grep "^\[driver\]" $T/engine.log
  grep -iE "error|Traceback" $T/engine.log | tail -5
  tar -C /tmp -cf - trace_$fw | xz -T0 -6 > $OUT/$fw.tar.xz; ls -la $OUT/$fw.tar.xz
done
