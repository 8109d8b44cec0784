// @ts-check
/**
 * The OpenClaw plug-in: factdebate checks the agent's final answer before the user sees it.
 *
 * - `before_agent_finalize` (the answer the harness is about to accept): checked with factdebate's guard
 *   (`POST /v1/guard/check`). Under `rewrite`, a refuted answer sends the agent back for one revision listing what
 *   was refuted, and the revision comes back through this hook and is checked again.
 * - `reply_payload_sending` (the reply on its way to a channel or WebChat): replaced by what the policy left:
 *   the answer with footnotes (`flag`, and a revision that still states a refuted claim), a refusal naming what was
 *   refuted (`block`), or the notice that factdebate could not be reached (`failClosed`), or the answer with a note
 *   that it was not checked.
 * Heartbeat and cron turns, and turns with no text (tool calls only), are not checked.
 *
 * OpenClaw's HTTP APIs (`/v1/chat/completions`, `/v1/responses`) answer with the run's own text and run no
 * delivery hook, so there only `rewrite` changes what the caller reads; docs/guard/openclaw.md says which way in
 * to use for them.
 */
import { check, decide, forAgent, readSettings, skipped, unreachable } from "./guard.js";

/** @typedef {import("./guard.js").Outcome & {revised: boolean, at: number, delivered: boolean}} Kept */

const KEEP_MS = 10 * 60 * 1000;
const KEEP_MAX = 500;

/**
 * The user's last message in the run's messages (the question the answer is checked against).
 * @param {unknown[] | undefined} messages
 */
export function lastQuestion(messages) {
  for (const message of [...(messages ?? [])].reverse()) {
    const m = /** @type {{role?: string, content?: unknown}} */ (message);
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) {
      return m.content.filter((p) => p?.type === "text").map((p) => String(p.text)).join("\n");
    }
  }
  return undefined;
}

/**
 * The plug-in's hooks for one configuration, apart from OpenClaw's `api` (so they can be driven directly).
 * @param {Record<string, unknown> | undefined} config
 * @param {{warn: (message: string) => void, info?: (message: string) => void}} logger
 */
export function createHooks(config, logger) {
  // process.env, read through globalThis so the types need no @types/node
  const env = /** @type {{process?: {env: Record<string, string | undefined>}}} */ (globalThis).process?.env ?? {};
  const settings = readSettings(config, env);
  /** @type {Map<string, Kept>} */
  const kept = new Map();

  /** @param {string} key @param {Kept} value */
  function keep(key, value) {
    kept.set(key, value);
    const now = Date.now();
    for (const [k, v] of kept) {
      if (kept.size <= KEEP_MAX && now - v.at < KEEP_MS) break;
      kept.delete(k);
    }
  }

  /**
   * @param {{runId?: string, sessionKey?: string, sessionId?: string, lastAssistantMessage?: string,
   *          messages?: unknown[]}} event
   * @param {{runId?: string, agentId?: string, sessionKey?: string, trigger?: string}} ctx
   */
  async function beforeAgentFinalize(event, ctx) {
    const per = forAgent(settings, ctx.agentId);
    const answer = event.lastAssistantMessage;
    if (!per || skipped(ctx.trigger, answer) || answer === undefined) return undefined;
    const key = ctx.runId ?? event.runId ?? event.sessionKey ?? ctx.sessionKey ?? "";
    const before = kept.get(key);
    const revised = before?.kind === "revise";
    /** @type {import("./guard.js").Outcome} */
    let outcome;
    try {
      const result = await check(settings, {
        answer, question: lastQuestion(event.messages), policy: per.policy === "block" ? "block" : "flag",
        conversationId: event.sessionKey ?? ctx.sessionKey,
      });
      outcome = decide(per.policy, result, revised);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      logger.warn(`factdebate: ${why}`);
      outcome = unreachable(answer, per.failClosed, why);
    }
    keep(key, { ...outcome, revised, at: Date.now(), delivered: false });
    if (outcome.kind !== "revise") return undefined;
    return {
      action: /** @type {const} */ ("revise"),
      reason: "factdebate: the answer states what the evidence contradicts",
      retry: { instruction: outcome.text, idempotencyKey: `factdebate:${key}`, maxAttempts: 1 },
    };
  }

  /**
   * @param {{payload: {text?: string, isReasoning?: boolean} & Record<string, unknown>, runId?: string,
   *          sessionKey?: string}} event
   * @param {{runId?: string, sessionKey?: string}} ctx
   */
  function replyPayloadSending(event, ctx) {
    const key = event.runId ?? ctx.runId ?? event.sessionKey ?? ctx.sessionKey;
    const outcome = key === undefined ? undefined : kept.get(key);
    const payload = event.payload;
    if (!outcome || outcome.kind === "pass" || outcome.kind === "revise" || payload.isReasoning
        || typeof payload.text !== "string" || !payload.text.trim()) {
      return undefined;
    }
    if (outcome.delivered) return { cancel: true, reason: "factdebate: the checked answer was sent whole" };
    outcome.delivered = true;
    return { payload: { ...payload, text: outcome.text } };
  }

  return { settings, beforeAgentFinalize, replyPayloadSending, kept };
}

/** OpenClaw's plug-in entry (the shape `definePluginEntry` takes). */
export default {
  id: "factdebate",
  name: "factdebate fact checks",
  description: "Checks the agent's final answer with factdebate's guard before the user sees it.",
  /** @param {{pluginConfig?: Record<string, unknown>, logger?: {warn: (m: string) => void},
   *           on: (hook: string, handler: (event: any, ctx: any) => unknown, options?: object) => void}} api */
  register(api) {
    const logger = api.logger ?? { warn: (/** @type {string} */ m) => console.warn(m) };
    const hooks = createHooks(api.pluginConfig, logger);
    // The check may take its whole deadline; OpenClaw's default budget for this hook is 15 s.
    const timeoutMs = Math.round((hooks.settings.deadlineS + 20) * 1000);
    api.on("before_agent_finalize", hooks.beforeAgentFinalize, { timeoutMs });
    api.on("reply_payload_sending", hooks.replyPayloadSending);
  },
};
