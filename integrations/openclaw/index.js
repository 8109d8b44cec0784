// @ts-check
/**
 * The OpenClaw plug-in: factdebate checks the agent's final answer before the user sees it.
 *
 * What each OpenClaw 2026.9.6 surface shows is decided in different places, which is why three hooks are used
 * (docs/guard/openclaw.md has the table):
 * - `before_agent_finalize` (the answer the harness is about to accept): checked with factdebate's guard
 *   (`POST /v1/guard/check`). Under `rewrite`, a refuted answer sends the agent back for one revision listing
 *   what was refuted; the revision comes back through this hook and is checked again. The revision is the run's
 *   own answer, so it is what every surface shows.
 * - `before_agent_run`: an answer to withhold (`block`, and `failClosed` when the check was not complete) is sent
 *   back for "revision" too, and this gate stops that pass before any model call with the refusal as its
 *   message. A run stopped there is what the HTTP API (an error, HTTP 500), the CLI and WebChat (the refusal,
 *   after OpenClaw's "Your message could not be sent:") show: the refuted answer reaches none of them.
 * - `reply_payload_sending` (the reply on its way to a channel, WebChat's delivery included): replaced by what
 *   the policy left: the answer with footnotes (`flag`, a revision that still states a refuted claim, an
 *   unreachable factdebate without `failClosed`) or the refusal alone. The HTTP API, the CLI and WebChat's own
 *   view of the run do not read this payload: there footnotes do not show (the guard as OpenClaw's model
 *   provider is the way that footnotes every surface).
 * Heartbeat and cron turns, and turns with no text (tool calls only), are not checked.
 *
 * OpenClaw loads a plug-in more than once in one gateway (a registry per loading context) and may run one hook
 * on one copy and the next on another, so what the hooks share lives on `globalThis` under a registered symbol,
 * not in this module.
 */
import { check, decide, forAgent, readSettings, skipped, unreachable } from "./guard.js";

/** @typedef {import("./guard.js").Outcome & {revised: boolean, at: number, delivered: boolean}} Kept */
/** @typedef {{kept: Map<string, Kept>, withhold: Map<string, string>}} Shared */

const KEEP_MS = 10 * 60 * 1000;
const KEEP_MAX = 500;
const SHARED = Symbol.for("factdebate.openclaw.state");

/** The state every copy of the plug-in in this process shares. @returns {Shared} */
export function shared() {
  const g = /** @type {Record<symbol, Shared | undefined>} */ (/** @type {unknown} */ (globalThis));
  g[SHARED] ??= { kept: new Map(), withhold: new Map() };
  return g[SHARED];
}

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

/** @param {{runId?: string, sessionKey?: string}} event @param {{runId?: string, sessionKey?: string}} ctx */
function runKey(event, ctx) {
  return ctx.runId ?? event.runId ?? event.sessionKey ?? ctx.sessionKey;
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
  const { kept, withhold } = shared();

  /** @param {string} key @param {Kept} value */
  function keep(key, value) {
    kept.set(key, value);
    const now = Date.now();
    for (const [k, v] of kept) {
      if (kept.size <= KEEP_MAX && now - v.at < KEEP_MS) break;
      kept.delete(k);
      withhold.delete(k);
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
    const key = runKey(event, ctx) ?? "";
    const before = kept.get(key);
    const revised = before?.kind === "revise";
    /** @type {import("./guard.js").Outcome} */
    let outcome;
    try {
      const result = await check(settings, {
        answer, question: lastQuestion(event.messages), policy: per.policy === "block" ? "block" : "flag",
        conversationId: event.sessionKey ?? ctx.sessionKey, onUnchecked: per.failClosed ? "block" : undefined,
      });
      outcome = decide(per.policy, result, revised, per.failClosed);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      logger.warn(`factdebate: ${why}`);
      outcome = unreachable(answer, per.failClosed, why);
    }
    keep(key, { ...outcome, revised, at: Date.now(), delivered: false });
    if (outcome.kind === "revise") {
      return {
        action: /** @type {const} */ ("revise"),
        reason: "factdebate: the answer states what the evidence contradicts",
        retry: { instruction: outcome.text, idempotencyKey: `factdebate:${key}`, maxAttempts: 1 },
      };
    }
    if (outcome.kind === "withheld") {
      // Sent back so that the answer is not accepted; before_agent_run stops the pass with the refusal. Should a
      // harness run the pass without that gate, the model reads an instruction that ends in the same refusal.
      withhold.set(key, outcome.text);
      return {
        action: /** @type {const} */ ("revise"),
        reason: "factdebate: the answer is withheld",
        retry: {
          instruction: `Do not give the previous answer. Reply with exactly this notice and nothing else:\n${outcome.text}`,
          idempotencyKey: `factdebate-withheld:${key}`, maxAttempts: 1,
        },
      };
    }
    return undefined;
  }

  /**
   * Stops the pass that follows a withheld answer before any model call; its message is what the user reads.
   * @param {unknown} _event
   * @param {{runId?: string, sessionKey?: string}} ctx
   */
  function beforeAgentRun(_event, ctx) {
    const key = runKey({}, ctx);
    const text = key === undefined ? undefined : withhold.get(key);
    // an explicit pass: OpenClaw's gate may read no answer from a handler as an invalid one, and block
    if (text === undefined || key === undefined) return { outcome: /** @type {const} */ ("pass") };
    withhold.delete(key);
    return { outcome: /** @type {const} */ ("block"), reason: "factdebate: the answer is withheld", message: text };
  }

  /**
   * @param {{payload: {text?: string, isReasoning?: boolean} & Record<string, unknown>, runId?: string,
   *          sessionKey?: string}} event
   * @param {{runId?: string, sessionKey?: string}} ctx
   */
  function replyPayloadSending(event, ctx) {
    const key = runKey(event, ctx);
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

  return { settings, beforeAgentFinalize, beforeAgentRun, replyPayloadSending, kept };
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
    api.on("before_agent_run", hooks.beforeAgentRun);
    api.on("reply_payload_sending", hooks.replyPayloadSending);
  },
};
