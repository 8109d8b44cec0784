// @ts-check
/* A small offline API reference drawn from the OpenAPI schema (no CDN, so it works without internet). */
import { el } from "./dom.js";

(async () => {
  const spec = await (await fetch("/openapi.json")).json();
  /** @param {string} ref */
  const refName = ref => ref.split("/").pop() || ref;

  /** A JSON Schema as a short type name. @param {any} schema @returns {string} */
  function typeOf(schema) {
    if (!schema) return "";
    if (schema.$ref) return refName(schema.$ref);
    if (schema.anyOf) return schema.anyOf.map(typeOf).filter((/** @type {string} */ t) => t !== "null").join(" | ") + " (optional)";
    if (schema.enum) return schema.enum.map((/** @type {unknown} */ v) => JSON.stringify(v)).join(" | ");
    if (schema.const !== undefined) return JSON.stringify(schema.const);
    if (schema.type === "array") return typeOf(schema.items) + "[]";
    return schema.type || "any";
  }

  /**
   * Text from the schema whose Markdown `code` spans (the service's descriptions write them, or a docstring's ``code``) are drawn as
   * code, not printed with their backticks; nothing else is read as Markdown, and no HTML.
   * @param {keyof HTMLElementTagNameMap} tag @param {string} cls @param {string} text
   */
  function prose(tag, cls, text) {
    const node = el(tag, cls);
    const source = String(text);
    let at = 0;
    for (const m of source.matchAll(/(`{1,2})([^`]+?)\1/g)) { // `code` and a docstring's ``code``
      if (m.index > at) node.append(document.createTextNode(source.slice(at, m.index)));
      node.append(el("code", "", m[2]));
      at = m.index + m[0].length;
    }
    if (at < source.length) node.append(document.createTextNode(source.slice(at)));
    return node;
  }

  const intro = /** @type {HTMLElement} */ (document.getElementById("intro"));
  intro.append(el("h2", "", spec.info.title + " " + spec.info.version));
  (spec.info.description || "").split("\n\n").forEach((/** @type {string} */ p) => intro.append(prose("p", "", p)));

  const host = /** @type {HTMLElement} */ (document.getElementById("endpoints"));
  Object.entries(spec.paths).forEach(([path, ops]) => {
    Object.entries(/** @type {Record<string, any>} */ (ops)).forEach(([method, op]) => {
      const card = el("details", "card endpoint");
      const head = el("summary");
      head.append(el("span", "verb " + method, method.toUpperCase()), el("code", "path", path),
        el("span", "muted", op.summary || ""));
      card.append(head);
      if (op.description) card.append(prose("p", "", op.description));
      if ((op.parameters || []).length) {
        card.append(el("h3", "", "Parameters"));
        const ul = el("ul");
        op.parameters.forEach((/** @type {any} */ p) => ul.append(prose("li", "", p.name + " (" + p.in + ", " + typeOf(p.schema) + ")" +
          (p.required ? ", required" : "") + (p.description ? ": " + p.description : ""))));
        card.append(ul);
      }
      const body = op.requestBody && op.requestBody.content;
      if (body) {
        card.append(el("h3", "", "Request body"));
        Object.entries(/** @type {Record<string, any>} */ (body)).forEach(([type, c]) => card.append(el("p", "", type + ": " + typeOf(c.schema))));
      }
      card.append(el("h3", "", "Responses"));
      const ul = el("ul");
      Object.entries(/** @type {Record<string, any>} */ (op.responses || {})).forEach(([code, r]) => {
        const types = Object.entries(/** @type {Record<string, any>} */ (r.content || {})).map(([t, c]) => t + (c.schema ? " " + typeOf(c.schema) : ""));
        ul.append(prose("li", "", code + " " + (r.description || "") + (types.length ? " — " + types.join(", ") : "")));
      });
      card.append(ul);
      host.append(card);
    });
  });

  const schemas = /** @type {HTMLElement} */ (document.getElementById("schemas"));
  Object.entries((spec.components || {}).schemas || {}).forEach(([name, schema]) => {
    const card = el("details", "card endpoint");
    card.append(el("summary", "", name));
    if (schema.description) card.append(prose("p", "muted", schema.description));
    const ul = el("ul");
    Object.entries(schema.properties || {}).forEach(([prop, s]) => {
      const required = (schema.required || []).includes(prop) ? ", required" : "";
      ul.append(prose("li", "", prop + ": " + typeOf(s) + required + (s.description ? " — " + s.description : "")));
    });
    card.append(ul);
    schemas.append(card);
  });
})();
