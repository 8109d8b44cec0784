// The Vercel AI SDK (ai, @ai-sdk/openai-compatible) through the guard: an OpenAI-compatible provider, which
// calls Chat Completions (the `openai()` provider calls the Responses API, which the guard does not serve).
import { randomUUID } from 'node:crypto';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';

const GUARD = process.env.FACTDEBATE_URL ?? 'http://127.0.0.1:8000';
const KEY = process.env.FACTDEBATE_API_KEYS?.split(',')[0]; // the service's key (its first)
const conversation = `chat-${randomUUID().slice(0, 12)}`;

const guard = createOpenAICompatible({
  name: 'guard',
  baseURL: `${GUARD}/v1`,
  apiKey: KEY,
  headers: { 'X-Factdebate-Conversation-Id': conversation }, // files every check under the conversation
});
const model = guard.chatModel('gpt-4o-mini'); // passed on to the guard's upstream as is
// providerOptions.guard (the provider's name) is merged into the request body: the "factdebate" options.
const providerOptions = { guard: { factdebate: { policy: 'flag', tier: 'fast', deadline_s: 15 } } };
const prompt = 'Tell me about the Eiffel Tower.';

const reply = await generateText({ model, prompt, providerOptions });
console.log(reply.text); // the answer, with a fact-check footnote when a claim is refuted
const check = reply.response.body.factdebate; // the SDK keeps the raw body; its text and result drop the rest
for (const claim of check.claims) console.log(claim.status, claim.label, claim.claim);

const stream = streamText({ model, prompt, providerOptions, includeRawChunks: true });
let streamed = null;
for await (const part of stream.fullStream) {
  if (part.type === 'text-delta') process.stdout.write(part.text); // tokens as they come; the footnote last
  else if (part.type === 'raw' && part.rawValue?.factdebate) streamed = part.rawValue.factdebate; // the last chunk
}
console.log('\n', streamed.label, streamed.action_taken);

// Without the object at hand: the check id of every reply is a header, and the conversation lists its checks.
const streamedId = (await stream.response).headers['x-factdebate-check-id'];
const auth = { headers: { Authorization: `Bearer ${KEY}` } };
const kept = await (await fetch(`${GUARD}/v1/checks/${streamedId}`, auth)).json(); // .verdict: as "factdebate"
const page = await (await fetch(`${GUARD}/v1/checks?conversation_id=${conversation}`, auth)).json(); // newest first
for (const listed of page.checks) console.log(listed.id, listed.verdict.label, listed.verdict.action_taken);
console.log(check.check_id, streamedId, kept.verdict.label);
