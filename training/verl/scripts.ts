/** The shell scripts of a bundle, as text (bundle.ts writes them; tests parse them). */
import { overrideLines } from "./launch.js";

const HEAD = `#!/usr/bin/env bash
# Written by cogr-edge (npm run train -- --backend verl). Edit the variables, not the overrides.
set -euo pipefail
BUNDLE="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"`;

export interface ScriptVars {
  readonly model: string;
  readonly servedName: string;
  readonly repo: string;
  readonly side: "query" | "item";
  readonly round: number;
}

const vars = (v: ScriptVars) => `MODEL_PATH="\${MODEL_PATH:-${v.model}}"
CHECKPOINT_DIR="\${CHECKPOINT_DIR:-$BUNDLE/checkpoints}"
ROLLOUT_TP="\${ROLLOUT_TP:-1}"
export COGR_REWARD_URL="\${COGR_REWARD_URL:-http://127.0.0.1:8377}"
: "\${COGR_REWARD_TOKEN:?set COGR_REWARD_TOKEN to the reward service token}"
export COGR_REWARD_TOKEN`;

export function runScript(v: ScriptVars, overrides: ReadonlyArray<readonly [string, string]>): string {
  return `${HEAD}
# Single node: GRPO on 8 GPUs with vLLM rollouts (Table 6). Start the reward service first (reward-service.sh).
${vars(v)}
python3 "$BUNDLE/cogr_reward.py" --check
python3 -m verl.trainer.main_ppo \\
${overrideLines(overrides)} \\
  "$@"
`;
}

export function rayScript(v: ScriptVars, overrides: ReadonlyArray<readonly [string, string]>): string {
  return `${HEAD}
# Several nodes through Ray. On the head node:   ray start --head --dashboard-host=0.0.0.0
# On every other node:                           ray start --address=<head>:6379
# CHECKPOINT_DIR and BUNDLE must be on storage every node sees; COGR_REWARD_URL must be reachable from every node
# (start the service with HOST=0.0.0.0 reward-service.sh on the head node).
${vars(v)}
RAY_ADDRESS="\${RAY_ADDRESS:-http://127.0.0.1:8265}"
python3 "$BUNDLE/cogr_reward.py" --check
ray job submit --address="$RAY_ADDRESS" \\
  --runtime-env-json="{\\"env_vars\\": {\\"COGR_REWARD_URL\\": \\"$COGR_REWARD_URL\\", \\"COGR_REWARD_TOKEN\\": \\"$COGR_REWARD_TOKEN\\"}}" \\
  --no-wait -- \\
python3 -m verl.trainer.main_ppo \\
${overrideLines(overrides)} \\
  "$@"
`;
}

export function sftScript(v: Omit<ScriptVars, "side" | "round">, side: "query" | "item", overrides: ReadonlyArray<readonly [string, string]>): string {
  return `${HEAD}
# Alg. 1: SFT of the ${side}-side generator on 8 GPUs (verl's FSDP SFT trainer).
MODEL_PATH="\${MODEL_PATH:-${v.model}}"
CHECKPOINT_DIR="\${CHECKPOINT_DIR:-$BUNDLE/checkpoints}"
torchrun --standalone --nnodes=1 --nproc_per_node="\${N_GPUS:-8}" -m verl.trainer.fsdp_sft_trainer \\
${overrideLines(overrides)} \\
  "$@"
`;
}

export function rewardServiceScript(v: ScriptVars): string {
  return `${HEAD}
# The reward this bundle trains against: round ${v.round}'s frozen opposite side (${v.side} side).
#   reward-service.sh [--background | --stop]
: "\${COGR_REWARD_TOKEN:?set COGR_REWARD_TOKEN (any secret; the shim sends it)}"
export COGR_REWARD_TOKEN
PORT="\${PORT:-8377}"
PID_FILE="$BUNDLE/reward-$PORT.pid"
cd "\${COGR_REPO:-${v.repo}}"
case "\${1:-}" in
  --stop) [ -f "$PID_FILE" ] && kill "$(cat "$PID_FILE")" && rm -f "$PID_FILE"; exit 0 ;;
  --background)
    nohup npx tsx scripts/reward-service.ts --side ${v.side} --round ${v.round} --host "\${HOST:-127.0.0.1}" --port "$PORT" > "$BUNDLE/reward-$PORT.log" 2>&1 &
    echo $! > "$PID_FILE"
    for _ in $(seq 1 120); do
      COGR_REWARD_URL="http://127.0.0.1:$PORT" COGR_REWARD_RETRIES=1 python3 "$BUNDLE/cogr_reward.py" --check > /dev/null 2>&1 && { echo "reward service on :$PORT"; exit 0; }
      sleep 1
    done
    echo "error: the reward service did not start (see $BUNDLE/reward-$PORT.log)" >&2; exit 2 ;;
  *) exec npx tsx scripts/reward-service.ts --side ${v.side} --round ${v.round} --host "\${HOST:-127.0.0.1}" --port "$PORT" ;;
esac
`;
}

export function mergeScript(): string {
  return `${HEAD}
# The last checkpoint → a Hugging Face folder vLLM can serve:  merge.sh [CHECKPOINT_DIR] [HF_DIR]
CHECKPOINT_DIR="\${1:-\${CHECKPOINT_DIR:-$BUNDLE/checkpoints}}"
HF_DIR="\${2:-\${HF_DIR:-$BUNDLE/hf}}"
STEP_DIR="$(ls -d "$CHECKPOINT_DIR"/global_step_* 2>/dev/null | sort -V | tail -1 || true)"
[ -n "$STEP_DIR" ] || { echo "error: no global_step_* under $CHECKPOINT_DIR" >&2; exit 2; }
if [ -f "$STEP_DIR/config.json" ]; then
  mkdir -p "$HF_DIR" && cp -r "$STEP_DIR"/. "$HF_DIR"/     # the SFT trainer saves Hugging Face weights already
else
  ACTOR="$STEP_DIR/actor"; [ -d "$ACTOR" ] || ACTOR="$STEP_DIR"
  python3 -m verl.model_merger merge --backend fsdp --local_dir "$ACTOR" --target_dir "$HF_DIR"
fi
echo "merged $STEP_DIR into $HF_DIR"
`;
}

export function serveScript(servedName: string): string {
  return `${HEAD}
# Serve a merged model with vLLM's OpenAI-compatible API:  serve.sh [HF_DIR] [--background | --stop]
HF_DIR="\${HF_DIR:-$BUNDLE/hf}"
NAME="\${SERVED_NAME:-${servedName}}"
PORT="\${PORT:-8000}"
PID_FILE="$BUNDLE/vllm-$PORT.pid"
case "\${1:-}" in
  --stop) [ -f "$PID_FILE" ] && kill "$(cat "$PID_FILE")" && rm -f "$PID_FILE"; exit 0 ;;
  --background)
    # --generation-config vllm: decoding comes only from the request (Table 5), never from the model's defaults.
    nohup vllm serve "$HF_DIR" --served-model-name "$NAME" --port "$PORT" --generation-config vllm > "$BUNDLE/vllm-$PORT.log" 2>&1 &
    echo $! > "$PID_FILE"
    for _ in $(seq 1 600); do
      curl -sf "http://127.0.0.1:$PORT/v1/models" > /dev/null && { echo "vLLM serves $NAME on :$PORT"; exit 0; }
      sleep 2
    done
    echo "error: vLLM did not become ready (see $BUNDLE/vllm-$PORT.log)" >&2; exit 2 ;;
  *) exec vllm serve "$HF_DIR" --served-model-name "$NAME" --port "$PORT" --generation-config vllm ;;
esac
`;
}
