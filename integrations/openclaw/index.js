// @ts-check
/**
 * The OpenClaw plug-in: factdebate checks the agent's final answer before the user sees it.
 *
 * OpenClaw 2026.9.6 builds each surface's text in a different place (docs/guard/openclaw.md has the table). The
 * HTTP API, the CLI and WebChat show the text of the answer the agent run accepted, which no hook can edit:
 * `before_agent_finalize` can only accept it or send the agent back for another pass, and the delivery hooks
 * (`reply_payload_sending`, `message_sending`) run for channels only. So the plug-in changes an answer there the
 * one way OpenClaw allows, through the agent's next pass:
 * - `before_agent_finalize` (the answer the harness is about to accept) checks it with factdebate's guard
 *   (`POST /v1/guard/check`). Under `rewrite`, a refuted answer sends the agent back for one revision listing
 *   what was refuted; the revision comes back through this hook and is checked again.
 * - An answer to withhold (the refusal instead of it) or to mark (its footnotes, or the note that it was not
 *   checked) sends the agent back with the text decided, to give as its answer word for word
 *   (`relayRequest`); `before_prompt_build` gives that pass a system prompt with no other task, and no
 *   tools. The pass's answer comes back through `before_agent_finalize`: the same words are accepted (an
 *   ordinary answer on every surface), anything else is not, and the pass after it is stopped by the
 *   `before_agent_run` gate before any model call, with the decided text as its message (which OpenClaw shows
 *   as an error: HTTP 500 on its HTTP API, "Your message could not be sent: ..." on the CLI and WebChat).
 * - `reply_payload_sending` (the reply on its way to a channel, WebChat's delivery included) is replaced by
 *   the decided text, so a channel gets it whatever the agent's last pass said.
 * - OpenClaw does not send the agent back once the turn's tools may have had side effects; such an answer
 *   reaches the HTTP API, the CLI and WebChat as written, and only channels get the decided text. `agent_end`
 *   notices and logs it; `factdebate.status` (a gateway method) counts it.
 * Heartbeat and cron turns, and turns with no text (tool calls only), are not checked.
 *
 * OpenClaw loads a plug-in more than once in one gateway (a registry per loading context) and may run one hook
 * on one copy and the next on another, so what the hooks share lives on `globalThis` under a registered symbol,
 * not in this module.
 */
import {
  check, decide, forAgent, readSettings, relayed, relayRequest, RELAY_SYSTEM, skipped, unreachable,
} from "./guard.js";

/**
 * One run's answer as decided: the outcome, and where passing its text on stands (`asked`: the agent was sent
 * back to give it; `given`: it did; `refused`: it gave something else and its next pass is stopped).
 * @typedef {import("./guard.js").Outcome & {question?: string, revised: boolean, at: number, delivered: boolean,
 *           relay?: "asked" | "given" | "refused", relays: number}} Kept
 */
/**
 * @typedef {{asked: number, given: number, refused: number, notRun: number}} RelayCounts  how often the agent
 *   was sent back to give a decided text, gave it, gave something else, or was not sent back by OpenClaw
 */
/** @typedef {{kept: Map<string, Kept>, withhold: Map<string, string>, counts: RelayCounts}} Shared */

const KEEP_MS = 10 * 60 * 1000;
const KEEP_MAX = 500;
const SHARED = Symbol.for("factdebate.openclaw.state");

/**
 * What each OpenClaw surface's user reads, as the plug-in can make it: logged when the gateway loads the
 * plug-in and answered by its status.
 */
export const SURFACES = {
  "HTTP API, CLI, WebChat": "the checked answer: a revision, the refusal, or the answer with its footnotes, " +
    "each given by the agent in one more pass; if the agent does not give the text word for word, OpenClaw's " +
    "error for a stopped run (HTTP 500 without words on the HTTP API; the text after \"Your message could not be " +
    "sent:\" on the CLI and WebChat). A turn whose tools may have had side effects is not sent back by OpenClaw: " +
    "its answer reaches these surfaces as written.",
  "channels (Telegram, Slack, ...)": "the checked answer, delivered in place of the agent's reply, on every turn",
};

/** The state every copy of the plug-in in this process shares. @returns {Shared} */
export function shared() {
  const g = /** @type {Record<symbol, Shared | undefined>} */ (/** @type {unknown} */ (globalThis));
  g[SHARED] ??= { kept: new Map(), withhold: new Map(), counts: { asked: 0, given: 0, refused: 0, notRun: 0 } };
  // a copy of an earlier version of the plug-in (before a reload) may have made the state without the counts
  g[SHARED].counts ??= { asked: 0, given: 0, refused: 0, notRun: 0 };
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
  const { kept, withhold, counts } = shared();

  /** @param {string} key @param {Kept} value */
  function keep(key, value) {
    kept.delete(key);  // re-inserted last: the map's order is the order of use, oldest first
    kept.set(key, value);
    const now = Date.now();
    for (const [k, v] of kept) {
      if (kept.size <= KEEP_MAX && now - v.at < KEEP_MS) break;
      kept.delete(k);
      withhold.delete(k);
    }
  }

  /**
   * Sends the agent back with `instruction` (OpenClaw's `revise`). Each request has a key of its own: OpenClaw
   * counts attempts per key and accepts the answer as it is once a key's attempts are spent.
   * @param {string} key @param {Kept} entry @param {string} reason @param {string} instruction
   */
  function sendBack(key, entry, reason, instruction) {
    entry.relays += 1;
    return {
      action: /** @type {const} */ ("revise"), reason,
      retry: { instruction, idempotencyKey: `factdebate:${key}:${entry.relays}`, maxAttempts: 1 },
    };
  }

  /**
   * The pass that was to give the decided text has answered: the same words are accepted; anything else is not
   * shown, and the pass after it is stopped with the decided text as its message.
   * @param {string} key @param {Kept} entry @param {string} answer
   */
  function relayAnswered(key, entry, answer) {
    if (relayed(answer, entry.text)) {
      entry.relay = "given";
      counts.given += 1;
      return undefined;
    }
    entry.relay = "refused";
    counts.refused += 1;
    withhold.set(key, entry.text);
    logger.warn("factdebate: the agent did not give the checked text word for word; its next pass is stopped " +
      "with that text (OpenClaw shows a stopped run as an error on its HTTP API, CLI and WebChat)");
    return sendBack(key, entry, "factdebate: the answer is not the checked text", relayRequest(entry.text));
  }

  /**
   * @param {{runId?: string, sessionKey?: string, sessionId?: string, lastAssistantMessage?: string,
   *          messages?: unknown[]}} event
   * @param {{runId?: string, agentId?: string, sessionKey?: string, trigger?: string}} ctx
   */
  async function beforeAgentFinalize(event, ctx) {
    const per = forAgent(settings, ctx.agentId);
    const answer = event.lastAssistantMessage;
    if (!per) return undefined;
    const key = runKey(event, ctx) ?? "";
    const before = kept.get(key);
    // before the skip: an empty or NO_REPLY answer to the request is not the decided text either
    if (before?.relay === "asked") return relayAnswered(key, before, answer ?? "");
    if (skipped(ctx.trigger, answer) || answer === undefined) return undefined;
    const revised = before?.kind === "revise";
    // the user's question, as the run's first pass read it: later passes end with OpenClaw's revision prompt
    const question = before?.question ?? lastQuestion(event.messages);
    /** @type {import("./guard.js").Outcome} */
    let outcome;
    try {
      const result = await check(settings, {
        answer, question, policy: per.policy === "block" ? "block" : "flag",
        conversationId: event.sessionKey ?? ctx.sessionKey, onUnchecked: per.failClosed ? "block" : undefined,
      });
      if (result.degraded) logger.warn(`factdebate: the check was degraded: ${result.degraded_reason}`);
      outcome = decide(per.policy, result, revised, per.failClosed);
    } catch (error) {
      logger.warn(`factdebate: ${error instanceof Error ? error.message : String(error)}`);
      outcome = unreachable(answer, per.failClosed);
    }
    /** @type {Kept} */
    const entry = { ...outcome, question, revised, at: Date.now(), delivered: false, relays: before?.relays ?? 0 };
    keep(key, entry);
    if (outcome.kind === "revise") {
      return sendBack(key, entry, "factdebate: the answer states what the evidence contradicts", outcome.text);
    }
    if (outcome.kind === "withheld" || outcome.kind === "footnoted") {
      entry.relay = "asked";
      counts.asked += 1;
      const why = outcome.kind === "withheld" ? "the answer is withheld" : "the answer goes out with its fact check";
      return sendBack(key, entry, `factdebate: ${why}`, relayRequest(outcome.text));
    }
    return undefined;
  }

  /**
   * The pass that gives the decided text has no other task: its system prompt says so, and it is offered no
   * tools (`toolsAllow: []`), so that it can neither act nor have side effects (after which OpenClaw would no
   * longer send the agent back).
   * @param {unknown} _event
   * @param {{runId?: string, sessionKey?: string}} ctx
   */
  function beforePromptBuild(_event, ctx) {
    const key = runKey({}, ctx);
    if (key === undefined || kept.get(key)?.relay !== "asked") return undefined;
    return { systemPrompt: RELAY_SYSTEM, toolsAllow: /** @type {string[]} */ ([]) };
  }

  /**
   * Stops the pass that follows an answer that was not the decided text, before any model call; its message is
   * what the user reads.
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
   * A run that ended while the agent was still to give the decided text: OpenClaw did not send it back (the
   * turn's tools may have had side effects), so its answer went out as written wherever the run's text is shown.
   * @param {{runId?: string}} event
   * @param {{runId?: string, sessionKey?: string}} ctx
   */
  function agentEnd(event, ctx) {
    const key = runKey(event, ctx);
    const entry = key === undefined ? undefined : kept.get(key);
    if (entry?.relay !== "asked") return;
    entry.relay = undefined;
    counts.notRun += 1;
    logger.warn("factdebate: OpenClaw accepted the answer without the pass that gives the checked text (a turn " +
      "whose tools may have had side effects is not sent back): the HTTP API, the CLI and WebChat show it as the " +
      "agent wrote it; channels get the checked text");
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

  /** What the plug-in's status says: its settings (no key), what each surface shows, and the passes so far. */
  function status() {
    const agents = Object.fromEntries(Object.entries(settings.agents).map(([id, a]) => [id, { ...a }]));
    return {
      baseUrl: settings.baseUrl, policy: settings.policy, failClosed: settings.failClosed, agents,
      surfaces: SURFACES, passes: { ...counts },
    };
  }

  return {
    settings, beforeAgentFinalize, beforePromptBuild, beforeAgentRun, agentEnd, replyPayloadSending, status, kept,
  };
}

/** OpenClaw's plug-in entry (the shape `definePluginEntry` takes). */
export default {
  id: "factdebate",
  name: "factdebate fact checks",
  description: "Checks the agent's final answer with factdebate's guard before the user sees it.",
  /** @param {{pluginConfig?: Record<string, unknown>, registrationMode?: string,
   *           logger?: {warn: (m: string) => void, info?: (m: string) => void},
   *           on: (hook: string, handler: (event: any, ctx: any) => unknown, options?: object) => void,
   *           registerGatewayMethod?: (method: string, handler: (opts: {respond: (ok: boolean, payload?: unknown)
   *             => void}) => void, options?: {scope?: string}) => void}} api */
  register(api) {
    const logger = api.logger ?? { warn: (/** @type {string} */ m) => console.warn(m) };
    const hooks = createHooks(api.pluginConfig, logger);
    // The check may take its whole deadline; OpenClaw's default budget for this hook is 15 s.
    const timeoutMs = Math.round((hooks.settings.deadlineS + 20) * 1000);
    api.on("before_agent_finalize", hooks.beforeAgentFinalize, { timeoutMs });
    api.on("before_prompt_build", hooks.beforePromptBuild);
    api.on("before_agent_run", hooks.beforeAgentRun);
    api.on("agent_end", hooks.agentEnd);
    api.on("reply_payload_sending", hooks.replyPayloadSending);
    api.registerGatewayMethod?.("factdebate.status", ({ respond }) => respond(true, hooks.status()),
      { scope: "operator.read" });
    if (api.registrationMode === undefined || api.registrationMode === "full") {
      const say = logger.info ?? logger.warn;
      for (const [surface, shows] of Object.entries(SURFACES)) say(`factdebate: ${surface}: ${shows}`);
    }
  },
};
