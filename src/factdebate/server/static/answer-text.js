// @ts-check
/* A model's answer as a reader wants it: an agent that replies with a JSON action (MERMAID's executor, a
   ReAct step) shows its prose, not its braces. Pure, so it is tested without a page. */
/** An answer as words: a reply written as a JSON action ({"thought": …, "answer": …}) shows its prose fields,
 * anything else as it is. @param {string | undefined} response */
export function readable(response) {
  const text = String(response || "");
  if (!text.trim().startsWith("{")) return text;
  try {
    const parsed = JSON.parse(text);
    if (!parsed || typeof parsed !== "object") return text;
    const fields = ["answer", "justification", "reason", "explanation", "thought"]
      .map(k => parsed[k]).filter(v => typeof v === "string" && v.trim());
    return fields.length ? fields.join("\n") : text;
  } catch (_) {
    return text;
  }
}
