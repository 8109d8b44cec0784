// Drives the factdebate OpenClaw plug-in through OpenClaw itself, for tests/server/guard/test_openclaw.py: OpenClaw's
// plug-in loader reads integrations/openclaw (its manifest, its config schema, its entry) as the gateway does, and
// OpenClaw's hook runner calls the hooks it registered, with OpenClaw's own merging, timeouts and error handling;
// no gateway is started. argv: [scenarios JSON: [{name, config, answers, trigger?, deaf?, otherCopy?}], the
// openclaw package's folder, the plug-in's folder]. One turn per scenario: each answer goes to
// before_agent_finalize; while the plug-in sends the agent back, the next pass's prompt is built
// (before_prompt_build), before_agent_run gates it (a block stops it: `stopped`) and its answer is the agent's
// next (the text the plug-in asked it to give, unless `deaf`). The answer last accepted (or the block's error
// reply) then goes out through reply_payload_sending, and what it became is a channel's text.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [scenariosJson, openclawRoot, pluginDir] = process.argv.slice(2);
const dist = join(openclawRoot, "dist");
const url = (/** @type {string} */ path) => pathToFileURL(path).href;

// The loader is not among the package's exports (its plugin-sdk exports the hook runner): it is found in the
// built chunks by its exported name, so a rebuilt or newer package is found as well.
let loadPlugins;
for (const file of readdirSync(dist).filter((f) => f.startsWith("loader-") && f.endsWith(".mjs"))) {
  const alias = readFileSync(join(dist, file), "utf8").match(/\bloadOpenClawPlugins as (\w+)/)?.[1];
  if (alias) {
    loadPlugins = (await import(url(join(dist, file))))[alias];
    break;
  }
}
if (typeof loadPlugins !== "function") throw new Error(`no loadOpenClawPlugins in ${dist}`);
const { getGlobalHookRunner } = await import(url(join(dist, "plugin-sdk", "plugin-runtime.js")));

// The scripted agent: a pass asked to give a text between the plug-in's marker lines gives it (unless the scenario
// is `deaf`: then, and on every other pass, the scenario's next answer, or its last one again).
const RELAY = /-----BEGIN REPLY-----\n([\s\S]*)\n-----END REPLY-----/;

const out = [];
for (const s of JSON.parse(scenariosJson)) {
  const registry = loadPlugins({
    config: { plugins: { load: { paths: [pluginDir] }, entries: { factdebate: {
      enabled: true, hooks: { allowConversationAccess: true }, config: s.config } } } },
    onlyPluginIds: ["factdebate"], workspaceDir: process.cwd(), env: process.env,
  });
  const loaded = registry.plugins.find((/** @type {any} */ p) => p.id === "factdebate");
  if (loaded?.status !== "loaded") throw new Error(`the plug-in did not load: ${JSON.stringify(registry.diagnostics)}`);
  const runner = getGlobalHookRunner();
  const sessionKey = `agent:main:${s.name}`;
  const ctx = { runId: `run-${s.name}`, agentId: "main", sessionKey, trigger: s.trigger ?? "user" };
  const decisions = [];
  const systemPrompts = []; // what before_prompt_build set for each pass after the first: its system prompt
  const toolsAllowed = []; // ... and the tools it left the pass (null: the agent's own)
  const answers = [...s.answers];
  let answer = answers.shift();
  let stopped; // the message of before_agent_run's block, when it stopped a pass
  for (;;) {
    const decision = await runner.runBeforeAgentFinalize({ runId: ctx.runId, sessionKey, lastAssistantMessage: answer,
      messages: [{ role: "user", content: "Where is the Eiffel Tower?" }] }, ctx);
    decisions.push(decision ?? null);
    if (decision?.action !== "revise" || decisions.length > 4) break;
    // the pass the revision asks for: its prompt is built, then before_agent_run gates it, as OpenClaw's embedded
    // runner has it
    const built = await runner.runBeforePromptBuild({ prompt: decision.retry?.instruction ?? "", messages: [] }, ctx);
    systemPrompts.push(built?.systemPrompt ?? null);
    toolsAllowed.push(built?.toolsAllow ?? null);
    const gate = await runner.runBeforeAgentRun({ prompt: decision.retry?.instruction ?? "", messages: [] }, ctx);
    if (gate?.decision?.outcome === "block") {
      stopped = gate.decision.message;
      // what OpenClaw then delivers: the block as an error reply (hooks.ts's resolveBlockMessage)
      answer = `Your message could not be sent: ${stopped} (blocked by ${gate.pluginId})`;
      break;
    }
    const asked = (decision.retry?.instruction ?? "").match(RELAY);
    answer = asked && !s.deaf ? asked[1] : (answers.shift() ?? answer);
  }
  const event = { payload: { text: answer }, runId: ctx.runId, sessionKey };
  let sent;
  if (s.otherCopy) {
    // OpenClaw may run the delivery hook on another copy of the plug-in than the one that checked the answer
    // (it loads a plug-in more than once in a gateway): a second instance of the module, as a fresh import is
    const { createHooks } = await import(`${url(join(pluginDir, "index.js"))}?copy=${s.name}`);
    sent = createHooks(s.config, console).replyPayloadSending(event, ctx);
  } else {
    sent = await runner.runReplyPayloadSending(event, ctx);
  }
  // `answer`: the run's text (the HTTP API, the CLI, WebChat), unless a pass was `stopped`; `shown`: a channel's
  out.push({ name: s.name, decisions, systemPrompts, toolsAllowed, stopped: stopped ?? null, answer: stopped ? null : answer,
             shown: sent?.payload?.text ?? answer });
}
console.log(JSON.stringify(out));
process.exit(0); // the loaded registry keeps timers of its own
