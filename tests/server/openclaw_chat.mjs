// A WebChat client for tests/server/guard/test_openclaw.py: it speaks the Gateway's WebSocket protocol as the Control
// UI's chat does (`chat.send`, then the `chat` events of that run) and prints, per message, what such a client
// shows: the text of the run's final message, or the error it ended with, and the text its deltas carried on the
// way (what was on screen before the end). argv: [the gateway's ws:// URL, its token, JSON [{sessionKey,
// message}], optionally JSON [gateway methods to call once the turns have ended, as `openclaw gateway call` does]];
// prints {ends, calls}. It connects as OpenClaw's local backend client (`gateway-client`, mode `backend`), which a
// loopback connection with the gateway's token may do without a paired device; the chat methods and events are
// the same.
const [url, token, turnsJson, callsJson] = process.argv.slice(2);
const turns = JSON.parse(turnsJson);
/** @type {WebSocket} */
let ws;
let next = 0;
/** @type {Map<string, {resolve: (v: any) => void, reject: (e: Error) => void}>} */
const pending = new Map();
/** Each run's deltas and its end, by run id (an event may come before chat.send's answer names the run). */
/** @type {Map<string, {deltas: string[], end?: object, resolve?: (v: any) => void}>} */
const runs = new Map();
/** @param {string} runId */
const runOf = (runId) => runs.get(runId) ?? runs.set(runId, { deltas: [] }).get(runId);

/** @param {string} method @param {object} params @returns {Promise<any>} */
function request(method, params) {
  return new Promise((resolve, reject) => {
    const id = String(++next);
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ type: "req", id, method, params }));
  });
}

/** @param {any} message */
function textOf(message) {
  if (!message) return null;
  if (typeof message.text === "string") return message.text;
  if (typeof message.content === "string") return message.content;
  return (message.content ?? []).filter((p) => p?.type === "text").map((p) => p.text).join("");
}

/** One connection and its handshake; rejects with the gateway's error (and its retry hint) if refused. */
function connect() {
  ws = new WebSocket(url);
  return new Promise((resolve, reject) => {
    ws.onerror = () => reject(new Error(`could not connect to ${url}`));
    ws.onmessage = (event) => {
      const frame = JSON.parse(String(event.data));
      if (frame.type === "res") {
        const waiting = pending.get(frame.id);
        pending.delete(frame.id);
        if (frame.ok) waiting?.resolve(frame.payload);
        else waiting?.reject(Object.assign(new Error(JSON.stringify(frame.error)), { refusal: frame.error }));
      } else if (frame.event === "connect.challenge") {
        request("connect", {
          minProtocol: 4, maxProtocol: 4, role: "operator", scopes: ["operator.read", "operator.write"],
          client: { id: "gateway-client", version: "1", platform: "linux", mode: "backend" }, caps: [],
          auth: { token },
        }).then(resolve, reject);
      } else if (frame.event === "chat") {
        const run = runOf(frame.payload.runId);
        if (!run) return;
        const { state, message, errorMessage } = frame.payload;
        if (state === "delta") run.deltas.push(textOf(message) ?? "");
        if (state === "final" || state === "error" || state === "aborted") {
          run.end = { state, text: textOf(message), error: errorMessage ?? null, deltas: run.deltas };
          run.resolve?.(run.end);
        }
      }
    };
  });
}

// A gateway still starting refuses the handshake with a retry hint (`retryable`, `retryAfterMs`), as the
// protocol says clients should expect: connect again after it, as the Control UI does.
for (let tries = 1; ; tries++) {
  try {
    await connect();
    break;
  } catch (error) {
    const refusal = /** @type {{refusal?: {retryable?: boolean, retryAfterMs?: number}}} */ (error).refusal;
    if (!refusal?.retryable || tries >= 60) throw error;
    ws.close();
    await new Promise((resolve) => setTimeout(resolve, refusal.retryAfterMs ?? 500));
  }
}
const shown = await Promise.all(turns.map(async (/** @type {{sessionKey: string, message: string}} */ turn) => {
  const started = await request("chat.send", { sessionKey: turn.sessionKey, message: turn.message,
    idempotencyKey: crypto.randomUUID() });
  const run = runOf(started.runId);
  const end = run?.end ?? await new Promise((resolve) => { if (run) run.resolve = resolve; });
  return { sessionKey: turn.sessionKey, ...end };
}));
/** @type {Record<string, unknown>} */
const calls = {};
for (const method of JSON.parse(callsJson ?? "[]")) calls[method] = await request(method, {});
console.log(JSON.stringify({ ends: shown, calls }));
process.exit(0);
