"""NeMo Guardrails' ``LLMRails`` on a config folder, for tests/guard/conformance/test_gateways.py: run by
.venv-nemo's Python (NeMo's pins conflict with factdebate's), it writes ``{"ready": true}`` once the rails are
built, then reads one JSON object a line (``{"messages": [...]}``) and writes one a line: the rails' answer
(``content``) or the error that stopped them (``error``). It imports nothing of factdebate's or the tests'.

    .venv-nemo/bin/python tests/guard/conformance/nemo_rails.py CONFIG_FOLDER
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    answers, sys.stdout = sys.stdout, sys.stderr  # whatever NeMo prints goes to stderr, the answers alone here
    from nemoguardrails import LLMRails, RailsConfig

    rails = LLMRails(RailsConfig.from_path(sys.argv[1]))
    print(json.dumps({"ready": True}), file=answers, flush=True)  # the test waits for this, not for a clock
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = rails.generate(messages=request["messages"])
            out = {"content": answer.get("content") if isinstance(answer, dict) else str(answer)}
        except Exception as exc:  # the action's refusal or failure: what the user would get instead
            out = {"content": None, "error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(out), file=answers, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
