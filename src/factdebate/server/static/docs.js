// @ts-check
/* A small offline API reference drawn from the OpenAPI schema (no CDN, so it works without internet). */
"use strict";

(async () => {
  const el = (tag, cls, text) => {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  };
  const spec = await (await fetch("/openapi.json")).json();
  const refName = ref => ref.split("/").pop();

  function typeOf(schema) {
    if (!schema) return "";
    if (schema.$ref) return refName(schema.$ref);
    if (schema.anyOf) return schema.anyOf.map(typeOf).filter(t => t !== "null").join(" | ") + " (optional)";
    if (schema.enum) return schema.enum.map(v => JSON.stringify(v)).join(" | ");
    if (schema.const !== undefined) return JSON.stringify(schema.const);
    if (schema.type === "array") return typeOf(schema.items) + "[]";
    return schema.type || "any";
  }

  const intro = document.getElementById("intro");
  intro.append(el("h2", "", spec.info.title + " " + spec.info.version));
  (spec.info.description || "").split("\n\n").forEach(p => intro.append(el("p", "", p)));

  const host = document.getElementById("endpoints");
  Object.entries(spec.paths).forEach(([path, ops]) => {
    Object.entries(ops).forEach(([method, op]) => {
      const card = el("details", "card endpoint");
      const head = el("summary");
      head.append(el("span", "verb " + method, method.toUpperCase()), el("code", "path", path),
        el("span", "muted", op.summary || ""));
      card.append(head);
      if (op.description) card.append(el("p", "", op.description));
      if ((op.parameters || []).length) {
        card.append(el("h3", "", "Parameters"));
        const ul = el("ul");
        op.parameters.forEach(p => ul.append(el("li", "", p.name + " (" + p.in + ", " + typeOf(p.schema) + ")" +
          (p.required ? ", required" : "") + (p.description ? ": " + p.description : ""))));
        card.append(ul);
      }
      const body = op.requestBody && op.requestBody.content;
      if (body) {
        card.append(el("h3", "", "Request body"));
        Object.entries(body).forEach(([type, c]) => card.append(el("p", "", type + ": " + typeOf(c.schema))));
      }
      card.append(el("h3", "", "Responses"));
      const ul = el("ul");
      Object.entries(op.responses || {}).forEach(([code, r]) => {
        const types = Object.entries(r.content || {}).map(([t, c]) => t + (c.schema ? " " + typeOf(c.schema) : ""));
        ul.append(el("li", "", code + " " + (r.description || "") + (types.length ? " — " + types.join(", ") : "")));
      });
      card.append(ul);
      host.append(card);
    });
  });

  const schemas = document.getElementById("schemas");
  Object.entries((spec.components || {}).schemas || {}).forEach(([name, schema]) => {
    const card = el("details", "card endpoint");
    card.append(el("summary", "", name));
    if (schema.description) card.append(el("p", "muted", schema.description));
    const ul = el("ul");
    Object.entries(schema.properties || {}).forEach(([prop, s]) => {
      const required = (schema.required || []).includes(prop) ? ", required" : "";
      ul.append(el("li", "", prop + ": " + typeOf(s) + required + (s.description ? " — " + s.description : "")));
    });
    card.append(ul);
    schemas.append(card);
  });
})();
