"""CoGR's custom reward for verl: the shim between verl's reward managers and
the cogr-edge reward service (`npm run reward-service`), standard library only.

verl loads this file through
    custom_reward_function.path=<bundle>/cogr_reward.py
    custom_reward_function.name=compute_score
and calls `compute_score` per sample (the naive reward manager:
data_source, solution_str, ground_truth, extra_info) or per batch
(reward_model.reward_manager=batch: data_sources, solution_strs,
ground_truths, extra_infos). Both go to the service, which scores with
cogr-edge's core: eq. 2.2 for queries, eq. 2.3 through App. B.3 for items.

The service is configured by the environment:
    COGR_REWARD_URL        default http://127.0.0.1:8377
    COGR_REWARD_TOKEN      the shared token (Authorization: Bearer ...)
    COGR_REWARD_TIMEOUT_S  per request, default 60
    COGR_REWARD_RETRIES    attempts per request, default 4 (backoff 0.5 s, 1 s, 2 s ...)

`parse_keywords` mirrors core/keyword-answer.ts line for line (the tests run
both on the same cases); the score itself always comes from the service.
Characters newer than python3's Unicode database (unicodedata.unidata_version)
are unassigned here and normalise as separators, unlike in Node: use a
python3 whose Unicode version is at least Node's for such catalogues.

Command line:
    python3 cogr_reward.py --check       health and a sample score against the service
    python3 cogr_reward.py --parse       JSON strings on stdin, one a line -> parsed keyword lists
"""

import json
import os
import sys
import time
import unicodedata
import urllib.error
import urllib.request

K_MAX = 30
KEYWORD_CHARS = 100
BATCH_SAMPLES = 1024

# JavaScript's \s and String.prototype.trim set: Python's str.isspace differs
# (it has U+001C..U+001F and U+0085, and lacks U+FEFF).
_JS_SPACE = set("\t\n\x0b\x0c\r \xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | {chr(c) for c in range(0x2000, 0x200B)}


class RewardServiceError(RuntimeError):
    """The reward service could not score: verl must stop rather than train on made-up rewards."""


def _utf16_len(s):
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def normalize_keyword(raw):
    """core/normalize.ts: NFKC, lower case, NFKC, every P/S/C/space run -> one space, trimmed."""
    s = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", raw).lower())
    out = []
    gap = False
    for ch in s:
        if unicodedata.category(ch)[0] in "PSCZ" or ch in _JS_SPACE:
            gap = True
        else:
            if gap and out:
                out.append(" ")
            gap = False
            out.append(ch)
    return "".join(out)


def _js_trim(s):
    a, b = 0, len(s)
    while a < b and s[a] in _JS_SPACE:
        a += 1
    while b > a and s[b - 1] in _JS_SPACE:
        b -= 1
    return s[a:b]


def _strip_bullet(p):
    """The regex /^\\s*(?:[-*\u2022]|[0-9]+[.)])\\s+/ of core/keyword-answer.ts."""
    i, n = 0, len(p)
    while i < n and p[i] in _JS_SPACE:
        i += 1
    if i < n and p[i] in "-*\u2022":
        j = i + 1
    else:
        j = i
        while j < n and "0" <= p[j] <= "9":
            j += 1
        if j == i or j >= n or p[j] not in ".)":
            return p
        j += 1
    k = j
    while k < n and p[k] in _JS_SPACE:
        k += 1
    return p[k:] if k > j else p


def _reject_constant(name):
    raise ValueError(name)  # JSON.parse has no NaN or Infinity


def _strict_array(trimmed):
    if not trimmed.startswith("["):
        return None
    try:
        v = json.loads(trimmed, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    return v if isinstance(v, list) else None


def parse_keywords(text, limit=K_MAX):
    """core/keyword-answer.ts parseKeywords: strict JSON array, else a tolerant list."""
    trimmed = _js_trim(text)
    parts = _strict_array(trimmed)
    if parts is None:
        parts = [_strip_bullet(p) for p in _split_js(trimmed)]
    out = {}
    for p in parts:
        if len(out) >= limit:
            break
        if not isinstance(p, str):
            continue
        k = normalize_keyword(p)
        if k != "" and _utf16_len(k) <= KEYWORD_CHARS:
            out.setdefault(k, None)
    return list(out)


def _split_js(s):
    """String.prototype.split(/[\\n,;]+/): separators runs are one cut, empty ends are kept."""
    out, cur, i, n = [], [], 0, len(s)
    while i < n:
        if s[i] in "\n,;":
            out.append("".join(cur))
            cur = []
            while i < n and s[i] in "\n,;":
                i += 1
            continue
        cur.append(s[i])
        i += 1
    out.append("".join(cur))
    return out


def _config():
    return {
        "url": os.environ.get("COGR_REWARD_URL", "http://127.0.0.1:8377").rstrip("/"),
        "token": os.environ.get("COGR_REWARD_TOKEN", ""),
        "timeout": float(os.environ.get("COGR_REWARD_TIMEOUT_S", "60")),
        "retries": max(1, int(os.environ.get("COGR_REWARD_RETRIES", "4"))),
    }


def _request(method, path, body=None):
    cfg = _config()
    data = None if body is None else json.dumps(body).encode("utf-8")
    last = None
    for attempt in range(cfg["retries"]):
        req = urllib.request.Request(cfg["url"] + path, data=data, method=method)
        req.add_header("content-type", "application/json")
        if cfg["token"]:
            req.add_header("authorization", "Bearer " + cfg["token"])
        try:
            with urllib.request.urlopen(req, timeout=cfg["timeout"]) as res:
                return json.loads(res.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            detail = e.read().decode("utf-8", "replace")[:300]
            if 400 <= e.code < 500 and e.code != 429:
                raise RewardServiceError("cogr reward service at %s refused the request (%d): %s" % (cfg["url"], e.code, detail))
            last = "HTTP %d: %s" % (e.code, detail)
        except (urllib.error.URLError, OSError, ValueError) as e:
            last = str(getattr(e, "reason", e))
        if attempt + 1 < cfg["retries"]:
            time.sleep(0.5 * 2**attempt)
    raise RewardServiceError(
        "cogr reward service at %s is unavailable after %d attempts (%s); start it with "
        "`npm run reward-service -- --side query|item --round N` and set COGR_REWARD_URL/COGR_REWARD_TOKEN" % (cfg["url"], cfg["retries"], last)
    )


def _jsonable(v):
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if hasattr(v, "tolist"):  # numpy arrays and scalars from the parquet loader
        return _jsonable(v.tolist())
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return str(v)


def score_batch(data_sources, solution_strs, ground_truths, extra_infos=None):
    n = len(solution_strs)
    if extra_infos is None:
        extra_infos = [None] * n
    if not (len(data_sources) == len(ground_truths) == len(extra_infos) == n):
        raise ValueError("compute_score: data_sources, solution_strs, ground_truths and extra_infos differ in length")
    scores = []
    for a in range(0, n, BATCH_SAMPLES):
        samples = [
            {
                "data_source": str(data_sources[j]),
                "solution_str": solution_strs[j],
                "ground_truth": _jsonable(ground_truths[j]),
                "extra_info": _jsonable(extra_infos[j]),
            }
            for j in range(a, min(n, a + BATCH_SAMPLES))
        ]
        res = _request("POST", "/v1/score", {"samples": samples})
        got = res.get("scores")
        if not isinstance(got, list) or len(got) != len(samples):
            raise RewardServiceError("cogr reward service answered %r instead of %d scores" % (res, len(samples)))
        scores.extend(float(s) for s in got)
    return scores


def compute_score(
    data_source=None,
    solution_str=None,
    ground_truth=None,
    extra_info=None,
    data_sources=None,
    solution_strs=None,
    ground_truths=None,
    extra_infos=None,
    **kwargs,
):
    """verl's entry point, per sample (-> float) or per batch (-> list of floats)."""
    if solution_strs is not None:
        return score_batch(list(data_sources), list(solution_strs), list(ground_truths), None if extra_infos is None else list(extra_infos))
    if solution_str is None:
        raise ValueError("compute_score needs solution_str (per sample) or solution_strs (batch)")
    return score_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]


def _main(argv):
    if argv[1:] == ["--parse"]:
        for line in sys.stdin:
            if line.strip():
                sys.stdout.write(json.dumps(parse_keywords(json.loads(line)), ensure_ascii=False) + "\n")
        return 0
    if argv[1:] == ["--check"]:
        try:
            health = _request("GET", "/healthz")
            print("reward service:", json.dumps(health))
            sample = health.get("sample")
            if sample:
                print("sample score:", compute_score(**sample))
        except RewardServiceError as e:
            print("error:", e, file=sys.stderr)
            return 2
        return 0
    print("usage: python3 cogr_reward.py --check | --parse", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
