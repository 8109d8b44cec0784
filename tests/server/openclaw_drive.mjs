// Drives the factdebate OpenClaw plug-in's hooks as OpenClaw calls them, for tests/server/test_openclaw.py: one
// turn per scenario (argv[2], JSON: [{name, config, answers, trigger?}]). Each answer in turn goes to
// before_agent_finalize; while the plug-in asks for a revision, the next answer is the agent's revision. The answer
// last accepted then goes out through reply_payload_sending, and what it became is the user's text.
const plugin = await import(process.argv[3]);
const scenarios = JSON.parse(process.argv[2]);
const out = [];
for (const s of scenarios) {
  const hooks = plugin.createHooks(s.config, { warn: () => {} });
  const ctx = { runId: `run-${s.name}`, agentId: "main", sessionKey: `agent:main:${s.name}`, trigger: s.trigger ?? "user" };
  const decisions = [];
  let answer;
  for (answer of s.answers) {
    const decision = await hooks.beforeAgentFinalize({ runId: ctx.runId, sessionKey: ctx.sessionKey,
      lastAssistantMessage: answer, messages: [{ role: "user", content: "Where is the Eiffel Tower?" }] }, ctx);
    decisions.push(decision ?? null);
    if (decision?.action !== "revise") break;
  }
  const sent = hooks.replyPayloadSending({ payload: { text: answer }, runId: ctx.runId }, {});
  out.push({ name: s.name, decisions, shown: sent?.payload?.text ?? answer, checked: hooks.kept.size });
}
console.log(JSON.stringify(out));
