"""What the scrub and the redaction recognise, declared once: what a URL is, which names call their value a
secret, which tokens are credentials by their shape, and which host names and addresses are the operator's.
Every face (the scrub of error text, of a verdict, of a stream; the redaction of URLs, arguments, settings and
logs) reads these, so two faces never disagree on what a key looks like."""

from __future__ import annotations

import re

MASK = "***"
HOST_WORDS = "the operator's host"
ENDPOINT_WORDS = "the operator's endpoint"
MIN_SECRET_CHARS = 8  # a shorter value is not scrubbed by value: too many ordinary words would go with it

# A URL with a scheme, up to whitespace, a quote, a bracket or a backslash (a JSON escape ends it).
URL = r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()\[\]{}\\]+"
URL_PATTERN = re.compile(URL)

# A name (a variable, an argument, a query parameter, a header, a settings field's last word) whose value is a
# secret; "auth" and "authorization" but not "author". A few are secret only as a name's last word ("sig", "pw").
SECRET_NAME = re.compile(r"key|token|secret|passw|pwd|credential|auth(?!ors?(?:$|[_-]))|cookie|session|signature"
                         r"|bearer|private|dsn|(?:^|[_-])(?:sig|pw|mailto|e-?mail)$", re.IGNORECASE)

# Credentials by shape: the prefixes of well-known keys (OpenAI's secret, restricted and project keys, Stripe-like
# publishable ones, GitHub, GitLab, Slack, AWS, Google, Hugging Face, a JWT's header).
KEY_PREFIXES = ("sk-", "sk_", "rk-", "pk-", "ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-", "xoxa-",
                "xoxb-", "xoxp-", "xoxr-", "xoxs-", "AKIA", "AIza", "hf_", "eyJ")
# A key: one of the prefixes and at least six characters of a token's alphabet, not ending in a full stop.
KEY = "(?:" + "|".join(map(re.escape, KEY_PREFIXES)) + r")[A-Za-z0-9_\-.]{5,}[A-Za-z0-9_\-]"
KEY_PATTERN = re.compile(KEY)
# A text holding none of these holds no credential by shape: substring tests, far faster than a pattern's scan.
KEY_HINTS = (*KEY_PREFIXES, "earer ", "Basic ")
KEY_SHAPED = re.compile(rf"\b{KEY}"
                        r"|(?<=[Bb]earer )(?!<)(?P<bearer>[^\s'\",;`<>]+)"  # not a "<key>" placeholder
                        r"|(?<=Basic )(?P<basic>[A-Za-z0-9+/=]{8,})")
# What follows "Bearer"/"Basic" is a credential only when it looks like one ("the bearer of bad news" is prose):
# these characters, a digit, mixed case or length say it does.
TOKEN_PUNCTUATION = frozenset("-._~+/=")

# In error text only: a long run of letters and digits mixed, as keys and signed tokens are; not one of lower-case
# hex digits alone (this service's ids, checksums: a caller needs them, and a hex key it holds goes by value).
LONG_TOKEN = re.compile(r"\b(?![0-9a-f]+(?![A-Za-z0-9_\-]))(?=[A-Za-z0-9_\-]*[0-9])(?=[A-Za-z0-9_\-]*[A-Za-z])"
                        r"[A-Za-z0-9_\-]{32,}\b")

# Domains that name no public host: the operator's network.
_INTERNAL_DOMAINS = ("internal", "intranet", "intra", "corp", "lan", "local", "localdomain", "home.arpa", "svc",
                     "cluster.local", "private")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
INTERNAL_HOST = re.compile(rf"\b(?:{_LABEL}\.)+(?:{'|'.join(map(re.escape, _INTERNAL_DOMAINS))})\b(?::\d{{1,5}})?",
                           re.IGNORECASE)
INTERNAL_HINTS = tuple(f".{d}" for d in _INTERNAL_DOMAINS)
# In error text only: any host (an IP v4 or v6, localhost, a dotted name with a port or a common ending).
_TLDS = ("com|net|org|io|ai|dev|app|cloud|co|us|uk|de|fr|eu|info|biz|internal|local|lan|corp|intra|home|svc|"
         "cluster|localdomain|test|example|invalid")
HOST = re.compile(r"\[[0-9A-Fa-f.]*:[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*\](?::\d{1,5})?"  # [v6]:port, never a list's [0]
                  r"|\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b"
                  r"|(?<![\w:])(?=[0-9A-Fa-f:]*::)[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])"
                  r"|\blocalhost(?::\d{1,5})?\b"
                  rf"|\b(?:{_LABEL}\.)+(?:(?:{_TLDS})\b(?::\d{{1,5}})?|[A-Za-z]{{2,63}}:\d{{1,5}}\b)", re.IGNORECASE)
# In error text only: a bare ``name:port`` ("gw-node-3:8443", "ollama:11434": a compose service or a host in the
# operator's search domain). Not a word that continues a path, a key or a number ("sha256:0a1b", "max_tokens:256",
# "T12:30:45"), not a name in capitals ("PMID:10": an identifier), not a one-digit count ("rounds:3").
BARE_HOST_PORT = re.compile(r"(?<![\w.:/@\\-])(?![A-Z0-9-]*:)[A-Za-z][A-Za-z0-9-]{0,62}:\d{2,5}(?![\w:\-]|\.\d)")


def secret_name(name: str) -> bool:
    """Whether a variable's, argument's, query parameter's or header's name calls its value a secret."""
    return SECRET_NAME.search(name) is not None


def key_shaped(token: str) -> bool:
    """Whether a whole token (a command-line argument, say) is a credential by its shape."""
    return KEY_PATTERN.fullmatch(token) is not None
