// @ts-check
/* Talking to the service: the key's header, error messages, and reading a stream of Server-Sent Events. */
import * as page from "./state.js";

/** @param {Record<string, string>} [extra] */
export function headers(extra) {
  /** @type {Record<string, string>} */
  const h = Object.assign({}, extra || {});
  if (page.get().key) h["Authorization"] = "Bearer " + page.get().key;
  return h;
}

/** The server's own message for a failed request. @param {Response} response */
export async function errorText(response) {
  try {
    const body = await response.json();
    if (body && body.detail) return typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
  } catch (_) { /* not JSON */ }
  return response.status + " " + response.statusText;
}

/** @param {Response} response */
export async function keyedError(response) {
  return response.status === 401 ? "The server needs a valid API key (top right)." : errorText(response);
}

/** The type of a check's failure when its model server refuses connections (llm/breaker.py): calls to it are
 * not even sent for a while. */
export const MODEL_DOWN = "ModelServerDown";

/**
 * A check's failure in words, from the stream's error event ({type, message}). A model server that is down is
 * said to be the service's, with what to do: the message alone ("the model server of openai:m is down: it
 * refused 3 connections in a row…") did not say that nothing was checked, nor that Retry is of use only once
 * it runs again. @param {any} data @param {string} [what] what was to be checked @returns {string}
 */
export function failureText(data, what = "the claim") {
  const message = String((data && data.message) || "unknown error");
  if (!data || data.type !== MODEL_DOWN) return message;
  return message.replace(/\.?$/, ". ") + "Nothing was checked, so this says nothing about " + what + ": the " +
    "service's model server is not running. Retry once its operator has started it again.";
}

/**
 * Reads an SSE response body (fetch, since EventSource cannot POST) and calls onEvent(name, data).
 * @param {Response} response @param {(name: string, data: any) => void} onEvent
 */
export async function readSSE(response, onEvent) {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      /** @type {string[]} */
      const data = [];
      frame.split("\n").forEach(line => {
        if (line.startsWith(":")) return;
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      });
      if (!data.length) continue;
      const parsed = JSON.parse(data.join("\n"));
      // A model server found down: the page's status dot asks the service's health again (main.js).
      if (name === "error" && parsed && parsed.type === MODEL_DOWN) document.dispatchEvent(new Event(MODEL_DOWN));
      onEvent(name, parsed);
    }
  }
}

/**
 * POSTs `body` to a streaming endpoint; the response, or throws an Error with the server's message. The page
 * always asks for the transcript: each model call's prompt and reply, folded under its turn (calls.js).
 * @param {string} path @param {object} body @param {AbortSignal} signal
 */
export async function stream(path, body, signal) {
  const r = await fetch(path, { method: "POST", signal, body: JSON.stringify({ ...body, transcript: true }),
    headers: headers({ "Content-Type": "application/json", "Accept": "text/event-stream" }) });
  if (!r.ok) throw new Error(await keyedError(r));
  return r;
}
