# LangChain (langchain-openai) through the guard: ChatOpenAI with the guard's /v1 as its base URL. LangChain
# drops the reply's "factdebate" object, so the verdicts are read back by the check id or the conversation.
import os
import uuid

import httpx
from langchain_openai import ChatOpenAI

GUARD = os.environ.get("FACTDEBATE_URL", "http://127.0.0.1:8000")
KEY = os.environ["FACTDEBATE_API_KEYS"].split(",")[0]  # the service's key (its first)
conversation = f"chat-{uuid.uuid4().hex[:12]}"

llm = ChatOpenAI(
    model="gpt-4o-mini",  # passed on to the guard's upstream as is
    base_url=f"{GUARD}/v1",
    api_key=KEY,
    extra_body={"factdebate": {"policy": "flag", "tier": "fast", "deadline_s": 15, "conversation_id": conversation}},
    include_response_headers=True,  # the check id comes in the headers
)

reply = llm.invoke("Tell me about the Eiffel Tower.")
print(reply.content)  # the answer, with a fact-check footnote when a claim is refuted
plain_id = reply.response_metadata["headers"]["x-factdebate-check-id"]

streamed_id = None
for chunk in llm.stream("Tell me about the Eiffel Tower."):
    print(chunk.content, end="", flush=True)  # tokens as they come; the footnote last
    streamed_id = streamed_id or chunk.response_metadata.get("headers", {}).get("x-factdebate-check-id")
print()

with httpx.Client(base_url=GUARD, headers={"Authorization": f"Bearer {KEY}"}, timeout=30) as guard:
    check = guard.get(f"/v1/checks/{plain_id}").json()["verdict"]  # one reply's check, as "factdebate" holds it
    for claim in check["claims"]:
        print(claim["status"], claim["label"], claim["claim"])
    page = guard.get("/v1/checks", params={"conversation_id": conversation}).json()  # the conversation's, newest first
    for kept in page["checks"]:
        print(kept["id"], kept["verdict"]["label"], kept["verdict"]["action_taken"])
print(plain_id, streamed_id)
