"""A generated conformance world beside the hand-written one (conversations.py): conversations built from
parts by ``hypothesis``, each false one with its all-true twin, run through the guard's doors.

The parts: facts whose verb comes in several tenses (sink/sank, die/died, win/won, fall/fell, write/wrote,
fly/flew, marry/married, was built, was first climbed); names in a long and a short form ("Mount Everest" /
"Everest", "Marie Curie" / "Curie"); answers as a statement, a pronoun statement, yes or no (either polarity,
bare or "Yes, it did."), a choice ("The former." / "The latter."), a bare value ("In 1915."); the subject
named 1 to 40 turns before the reply, in the person's turn or the assistant's; formats (a Markdown heading,
list items, a numbered list, a quote, a table row, a row of five cells, a JSON object, a sentence stating four
facts with the drawn one last, a code comment, a reply in German or French, or in Japanese or Chinese, whose
sentences follow each other with no space, or in Thai, which ends them with none) and framing
phrases ("Happy to help with the Titanic, which sank in 1915."); a greeting before and a true statement about
another fact after.

The checker double is the hand-written world's (:class:`WorldChecker`), handed each example's conversation: it
writes each statement's claim as a capable model does (the pronoun resolved, "Yes." and "The latter." written as
the full statement, the name in its long form), only when its prompt shows what the statement needs (the
subject's name), and decides each claim by the world's truth.

Each example runs the false reply and its twin through every door: the proxy plain and streamed under ``flag``,
``block`` and ``hold``, ``factdebate.aguard_stream`` under ``hold``, and ``POST /v1/guard/check``,
``factdebate.guard``, LiteLLM's guardrail route and MCP ``check_answer`` under ``flag``. The invariants, judged on the
text the client receives (test_conversations.judge, test_conformance.judge): no false statement delivered
without a refuted or unchecked mark; ``block`` refuses it; no true twin flagged (every claim checked and
supported, the reply delivered as written, under every policy); the same verdicts plain and streamed under each
policy; under ``hold`` no refuted text ever shown.

Examples: a fixed seed (``derandomize``) and a small count per family under the ``ci`` profile (tests/conftest.py,
the default); ``pytest tests/guard/conformance/test_generated.py --hypothesis-profile=long`` runs many more.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.guard.conformance.conversations import Conversation, Said, WorldChecker, truth
from tests.guard.conformance.scenarios import Scenario
from tests.guard.conformance.test_conformance import (
    CONFIG,
    FOOTNOTES,
    McpDoor,
    Outcome,
    World,
    open_world,
    prepare,
    through_check,
    through_proxy,
    through_python,
    through_stream,
    verdicts,
)
from tests.guard.conformance.test_conformance import mcp as mcp  # the fixture, opened on this module's world
from tests.guard.conformance.test_conversations import judge, through_litellm, through_mcp, through_python_stream


@dataclass(frozen=True)
class Fact:
    """A dated event: "{name} {past} in {year}." with its auxiliary and base form for questions and negations."""

    full: str  # the name as a claim writes it
    short: str  # a shorter form a reply may use
    pronoun: str
    did: str  # "did", or "was" for a passive
    base: str  # "sink", "win four Olympic gold medals", "built"
    past: str  # "sank", "won four Olympic gold medals", "was built"
    year: str  # true
    wrong: str  # false

    def said(self, year: str) -> str:
        return f"{_cap(self.full)} {self.past} in {year}."

    def denied(self, year: str) -> str:
        return f"{_cap(self.full)} {self.did} not {self.base} in {year}."


FACTS = [
    Fact("the RMS Titanic", "the Titanic", "it", "did", "sink", "sank", "1912", "1915"),
    Fact("Marie Curie", "Curie", "she", "did", "die", "died", "1934", "1950"),
    Fact("Mount Everest", "Everest", "it", "was", "first climbed", "was first climbed", "1953", "1963"),
    Fact("Jesse Owens", "Owens", "he", "did", "win four Olympic gold medals", "won four Olympic gold medals",
         "1936", "1948"),
    Fact("the Berlin Wall", "the Wall", "it", "did", "fall", "fell", "1989", "1991"),
    Fact("the Empire State Building", "the Empire State", "it", "was", "built", "was built", "1931", "1941"),
    Fact("George Orwell", "Orwell", "he", "did", "write Animal Farm", "wrote Animal Farm", "1945", "1955"),
    Fact("Amelia Earhart", "Earhart", "she", "did", "fly solo across the Atlantic", "flew solo across the Atlantic",
         "1932", "1937"),
    Fact("Queen Victoria", "Victoria", "she", "did", "marry Prince Albert", "married Prince Albert", "1840", "1850"),
]
FILLER = ("Interesting, go on.", "There is a lot of history behind that.", "What else should I know?",
          "Many visitors find that part the most surprising.")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _ask(*turns: str) -> list[dict[str, Any]]:
    return [{"role": "user" if n % 2 == 0 else "assistant", "content": t} for n, t in enumerate(turns)]


def before(fact: Fact, distance: int, question: str) -> list[dict[str, Any]]:
    """The turns before the reply: ``fact``'s subject named ``distance`` turns back (1: in the question itself,
    which then names it; odd: in a person's turn, even: in the assistant's), the question last."""
    if distance == 1:
        return _ask(question)
    named = [f"I have a question about {fact.full}."] if distance % 2 else \
        ["Pick a famous subject for me.", f"Let's talk about {fact.full}."]
    fillers = [FILLER[n % len(FILLER)] for n in range(distance - 2)]
    return _ask(*named, *fillers, question)


def _name(fact: Fact, form: str) -> str:
    return {"long": fact.full, "short": fact.short, "pronoun": fact.pronoun}[form]


def conversation(name: str, turns: list[dict[str, Any]], false: str, true: str, wrong: str,
                 said: list[Said], needs: tuple[str, ...]) -> Conversation:
    return Conversation(name, turns, false, true, wrong,
                        tuple(Said(s.sentence, s.claim, s.true, s.needs or needs) for s in said))


ANSWERS = ("pronoun statement", "yes or no", "yes or no, long", "choice", "bare value")


@st.composite
def answers(draw: st.DrawFn, kind: str) -> Conversation:
    """A short answer (``kind``) to a question about a fact whose subject is 1 to 40 turns back."""
    fact = draw(st.sampled_from(FACTS))
    distance = draw(st.integers(1, 40))
    form = draw(st.sampled_from(["long", "short"] if distance == 1 else ["pronoun", "long", "short"]))
    subject, aux = _name(fact, form), fact.did
    needs: tuple[str, ...] = (fact.full,) if form == "pronoun" else (subject,)
    if kind == "pronoun statement":
        question = f"When {aux} {subject} {fact.base}?"
        say = [f"{_cap(fact.pronoun)} {fact.past} in {year}." for year in (fact.wrong, fact.year)]
        said = [Said(say[0], fact.said(fact.wrong), False), Said(say[1], fact.said(fact.year), True)]
    elif kind.startswith("yes or no"):
        asked = draw(st.sampled_from([fact.wrong, fact.year]))
        question = f"{_cap(aux)} {subject} {fact.base} in {asked}?"
        yes, no = ((f"Yes, {fact.pronoun} {aux}.", f"No, {fact.pronoun} {aux} not.") if kind.endswith("long")
                   else ("Yes.", "No."))
        yes_claim, no_claim = fact.said(asked), fact.denied(asked)
        if asked == fact.wrong:  # "Yes." is false
            say = [yes, no]
            said = [Said(yes, yes_claim, False), Said(no, no_claim, True)]
        else:
            say = [no, yes]
            said = [Said(no, no_claim, False), Said(yes, yes_claim, True)]
    elif kind == "choice":
        first = draw(st.sampled_from([fact.wrong, fact.year]))
        second = fact.year if first == fact.wrong else fact.wrong
        question = f"{_cap(aux)} {subject} {fact.base} in {first} or in {second}?"
        former, latter = "The former.", "The latter."
        say = [former, latter] if first == fact.wrong else [latter, former]
        said = [Said(say[0], fact.said(fact.wrong), False), Said(say[1], fact.said(fact.year), True)]
    else:
        bare = draw(st.sampled_from(["In {}.", "{}."]))
        question = f"When {aux} {subject} {fact.base}?"
        say = [bare.format(fact.wrong), bare.format(fact.year)]
        said = [Said(say[0], fact.said(fact.wrong), False), Said(say[1], fact.said(fact.year), True)]
    turns = before(fact, distance, question)
    # The question's words a capable model reads the answer by, besides the subject's name.
    needs = (*needs, question) if kind != "pronoun statement" else needs
    return conversation(f"{kind}: {fact.short} at {distance} ({form})", turns, say[0], say[1], say[0], said, needs)


FORMATS = ("plain", "heading", "list", "numbered", "quote", "table", "wide table", "JSON", "long sentence",
           "code comment", "framing", "German", "French", "Japanese", "Chinese", "Thai")
# Each fact stated in another language, as a chatbot answering in the person's language writes it (the claim
# its checker writes stays English, as the evidence is).
OTHER_LANGUAGES = {
    "German": {"the RMS Titanic": "Die Titanic sank im Jahr {}.", "Marie Curie": "Marie Curie starb im Jahr {}.",
               "Mount Everest": "Der Mount Everest wurde im Jahr {} zum ersten Mal bestiegen.",
               "Jesse Owens": "Jesse Owens gewann im Jahr {} vier olympische Goldmedaillen.",
               "the Berlin Wall": "Die Berliner Mauer fiel im Jahr {}.",
               "the Empire State Building": "Das Empire State Building wurde im Jahr {} gebaut.",
               "George Orwell": "George Orwell schrieb Animal Farm im Jahr {}.",
               "Amelia Earhart": "Amelia Earhart flog im Jahr {} allein über den Atlantik.",
               "Queen Victoria": "Königin Victoria heiratete Prinz Albert im Jahr {}."},
    "French": {"the RMS Titanic": "Le Titanic a coulé en {}.", "Marie Curie": "Marie Curie est morte en {}.",
               "Mount Everest": "L'Everest a été gravi pour la première fois en {}.",
               "Jesse Owens": "Jesse Owens a remporté quatre médailles d'or olympiques en {}.",
               "the Berlin Wall": "Le mur de Berlin est tombé en {}.",
               "the Empire State Building": "L'Empire State Building a été construit en {}.",
               "George Orwell": "George Orwell a écrit La Ferme des animaux en {}.",
               "Amelia Earhart": "Amelia Earhart a traversé seule l'Atlantique en avion en {}.",
               "Queen Victoria": "La reine Victoria a épousé le prince Albert en {}."},
    "Japanese": {"the RMS Titanic": "タイタニック号は{}年に沈没した。",
                 "Marie Curie": "マリー・キュリーは{}年に亡くなった。",
                 "Mount Everest": "エベレストは{}年に初登頂された。",
                 "Jesse Owens": "ジェシー・オーエンスは{}年にオリンピックで金メダルを4個獲得した。",
                 "the Berlin Wall": "ベルリンの壁は{}年に崩壊した。",
                 "the Empire State Building": "エンパイア・ステート・ビルは{}年に建てられた。",
                 "George Orwell": "ジョージ・オーウェルは{}年に『動物農場』を書いた。",
                 "Amelia Earhart": "アメリア・イアハートは{}年に単独で大西洋を横断飛行した。",
                 "Queen Victoria": "ヴィクトリア女王は{}年にアルバート公と結婚した。"},
    "Chinese": {"the RMS Titanic": "泰坦尼克号于{}年沉没。", "Marie Curie": "玛丽·居里于{}年去世。",
                "Mount Everest": "珠穆朗玛峰于{}年首次被登顶。", "Jesse Owens": "杰西·欧文斯于{}年赢得四枚奥运会金牌。",
                "the Berlin Wall": "柏林墙于{}年倒塌。", "the Empire State Building": "帝国大厦建于{}年。",
                "George Orwell": "乔治·奥威尔于{}年写了《动物农场》。",
                "Amelia Earhart": "阿梅莉亚·埃尔哈特于{}年独自飞越大西洋。",
                "Queen Victoria": "维多利亚女王于{}年与阿尔伯特亲王结婚。"},
    # Thai writes no stops; a name is spaced from its surname (spans.py's Thai sentence ends).
    "Thai": {"the RMS Titanic": "เรือไททานิกจมลงในปี {}", "Marie Curie": "มารี กูรี เสียชีวิตในปี {}",
             "Mount Everest": "ยอดเขาเอเวอเรสต์ถูกพิชิตเป็นครั้งแรกในปี {}",
             "Jesse Owens": "เจสซี โอเวนส์ คว้าเหรียญทองโอลิมปิกสี่เหรียญในปี {}",
             "the Berlin Wall": "กำแพงเบอร์ลินล่มสลายในปี {}",
             "the Empire State Building": "ตึกเอ็มไพร์สเตตสร้างขึ้นในปี {}",
             "George Orwell": "จอร์จ ออร์เวลล์ เขียนแอนิมอลฟาร์มในปี {}",
             "Amelia Earhart": "อะมีเลีย แอร์ฮาร์ต บินเดี่ยวข้ามมหาสมุทรแอตแลนติกในปี {}",
             "Queen Victoria": "สมเด็จพระราชินีวิกตอเรียอภิเษกสมรสกับเจ้าชายอัลเบิร์ตในปี {}"},
}
# Languages written without spaces: a second sentence follows the first with none between them ("。"), or, in
# Thai, with a space (after a year, it runs on as one sentence that states both).
UNSPACED = ("Japanese", "Chinese", "Thai")


@st.composite
def statements(draw: st.DrawFn, shape: str) -> Conversation:
    """A statement of a fact in ``shape``, its name in its long or short form, maybe after a greeting and
    before a true statement of another fact."""
    fact = draw(st.sampled_from(FACTS))
    other = draw(st.sampled_from([f for f in FACTS if f is not fact]))
    subject = _name(fact, draw(st.sampled_from(["long", "short"])))
    greeting = draw(st.sampled_from(["", "Sure!", "Great question!"])) if shape not in OTHER_LANGUAGES else ""
    greeting += (" " if shape in ("plain", "framing") else "\n\n") if greeting else ""
    also = draw(st.booleans())
    # The facts a long sentence states before the drawn one, each true (four facts in one sentence, the drawn
    # one last, as an extractor's room once cut it off).
    before_it = [f for f in FACTS if f not in (fact, other)][:3]
    third = before_it[0]  # a wide table row's other fact: not the one a sentence after the table states

    def line(year: str) -> tuple[str, str]:
        """The reply's line for ``year`` and its words the extractor's text holds."""
        sentence = f"{_cap(subject)} {fact.past} in {year}."
        if shape == "heading":
            return f"# {sentence[:-1]}", sentence[:-1]
        if shape == "list":
            return f"- {sentence}", sentence
        if shape == "numbered":
            return f"1. {sentence}", sentence
        if shape == "quote":
            return f"> {sentence}", sentence
        if shape == "table":
            row = f"| {_cap(subject)} {fact.past} in | {year} |"
            return f"| Event | Year |\n| --- | --- |\n{row}", row
        if shape == "wide table":  # one row of five cells: the drawn fact's year among four others (the other
            # fact's cell writes its event too, so a claim of it holds the row's words and is checked)
            row = f"| {_cap(subject)} | {fact.past} | {year} | {third.full} {third.past} | {third.year} |"
            return f"| Subject | Event | Year | Also | That year |\n|---|---|---|---|---|\n{row}", row
        if shape == "JSON":  # as a ``response_format: json_object`` answer writes it
            return f'{{"subject": "{fact.full}", "event": "{fact.past}", "year": {year}}}', f'"year": {year}'
        if shape == "long sentence":
            parts = [f"{_cap(f.full) if n == 0 else f.full} {f.past} in {f.year}" for n, f in enumerate(before_it)]
            said = f"{subject} {fact.past} in {year}."
            return f"{', '.join(parts)} and {said}", said
        if shape == "code comment":
            return f"```python\n# {sentence}\nprint('done')\n```", sentence
        if shape == "framing":
            framed = f"Happy to help with {subject}, which {fact.past} in {year}."
            return framed, framed
        if shape in OTHER_LANGUAGES:
            translated = OTHER_LANGUAGES[shape][fact.full].format(year)
            return translated, translated
        return sentence, sentence

    (false_line, false_said), (true_line, true_said) = line(fact.wrong), line(fact.year)
    said = [Said(false_said, fact.said(fact.wrong), False), Said(true_said, fact.said(fact.year), True)]
    if shape == "long sentence":
        said += [Said(f"{_cap(f.full) if n == 0 else f.full} {f.past} in {f.year}", f.said(f.year), True)
                 for n, f in enumerate(before_it)]
    if shape == "wide table":
        said += [Said(f"| {third.full} {third.past} | {third.year} |", third.said(third.year), True)]
    if shape == "JSON":  # its claim is drawn from the whole object: the subject and the year are both in it
        said = [Said(f'"subject": "{fact.full}"', fact.said(y), y == fact.year, (f'"year": {y}',))
                for y in (fact.wrong, fact.year)]
    if shape in UNSPACED and also:  # the other fact in the same language, right after the first
        stated = OTHER_LANGUAGES[shape][other.full].format(other.year)
        tail = (" " if shape == "Thai" else "") + stated
        said.append(Said(stated, other.said(other.year), True, (stated,)))
    elif also:
        tail = f"\n\n{other.said(other.year)}"
        said.append(Said(other.said(other.year), other.said(other.year), True, (other.said(other.year),)))
    else:
        tail = ""
    turns = _ask(f"Tell me something about {fact.full}.")
    return conversation(f"{shape}: {fact.short}", turns, greeting + false_line + tail, greeting + true_line + tail,
                        false_line.splitlines()[-1] if "table" in shape else false_said, said, (fact.full,))


# Under the ``ci`` profile (tests/conftest.py, the default): four examples a family, and a failing one reported as
# drawn, not shrunk (each try is a dozen requests); under another (``long``), its count, shrunk.
CI = settings().max_examples == settings.get_profile("ci").max_examples
GENERATED = settings(max_examples=2 if CI else settings().max_examples, deadline=None,
                     phases=(Phase.explicit, Phase.reuse, Phase.generate) if CI else settings().phases,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


class Doors:
    """The module's world and MCP door, with a short repr (hypothesis prints a failing example's arguments)."""

    def __init__(self, world: World, mcp: McpDoor) -> None:
        self.world, self.mcp = world, mcp

    def __repr__(self) -> str:
        return "Doors()"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """The suite's world, with a longer upstream timeout: eleven requests at once on a busy machine outwait the
    suite's 2 s for the scripted upstream (the file is written as the world opens; the suite's own is restored)."""
    with ExitStack() as stack:
        with pytest.MonkeyPatch.context() as patch:
            patch.setitem(CONFIG["guard"], "upstream_timeout_s", 30.0)
            opened = stack.enter_context(open_world(tmp_path_factory.mktemp("generated"), checker=WorldChecker()))
        yield opened


@pytest.fixture(scope="module")
def doors(world: World, mcp: McpDoor) -> Doors:
    return Doors(world, mcp)


POLICIES = ("flag", "block", "hold")


def run_twin(doors: Doors, convo: Conversation, twin: str) -> list[tuple[str, Outcome]]:
    """One reply of ``convo`` through the proxy plain and streamed under each policy, ``factdebate.aguard_stream``
    under ``hold``, and ``/v1/guard/check``, ``factdebate.guard``, LiteLLM's guardrail route and MCP
    ``check_answer`` under ``flag``: each outcome with its policy."""
    world, reply = doors.world, convo.false if twin == "false" else convo.true
    cases = {policy: Scenario(f"{convo.name}-{twin}-{policy}", reply=reply, messages=convo.before,
                              options={"evidence": convo.evidence(), "policy": policy}) for policy in POLICIES}
    prepare(world, cases["flag"])
    with ThreadPoolExecutor(11) as pool:
        runs = [(policy, pool.submit(lambda c: through_proxy(world, c)[0], cases[policy])) for policy in POLICIES]
        runs += [(policy, pool.submit(through_stream, world, cases[policy])) for policy in POLICIES]
        runs += [("hold", pool.submit(through_python_stream, world, cases["hold"])),
                 ("flag", pool.submit(through_check, world, cases["flag"])),
                 ("flag", pool.submit(through_python, world, cases["flag"])),
                 ("flag", pool.submit(through_litellm, world, cases["flag"])),
                 ("flag", pool.submit(through_mcp, doors.mcp, convo, reply))]
        return [(policy, future.result()) for policy, future in runs]


def never_shown(convo: Conversation, twin: str, out: Outcome) -> list[str]:
    """Under ``hold``: no text a refuted claim marks is in the answer delivered (its footnotes may name it)."""
    result = out.result
    if result is None or result.get("policy") != "hold" or result["action_taken"] == "blocked":
        return []
    answer, reply = (out.delivered or "").split(FOOTNOTES)[0], result.get("original_text") or convo.false
    return [f"{convo.name} ({twin}) through {out.door}: {reply[c['span']['start']:c['span']['end']]!r} refuted, "
            f"yet shown: {answer!r}" for c in result["claims"]
            if c["status"] == "checked" and c["label"] == "REFUTES" and c.get("span")
            and reply[c["span"]["start"]:c["span"]["end"]] in answer]


def check(doors: Doors, convo: Conversation) -> None:
    world = doors.world
    world.checker.world = [convo]  # type: ignore[attr-defined]
    world.checker.truth = truth([convo])  # type: ignore[attr-defined]
    problems = []
    for twin in ("false", "true"):
        reply = convo.false if twin == "false" else convo.true
        outcomes = run_twin(doors, convo, twin)
        problems += [f"{problem} (under {policy})" for policy, out in outcomes
                     for problem in [*judge(convo, twin, out), *never_shown(convo, twin, out)]]
        by_door = {(out.door.replace(" choice 1", ""), policy): out for policy, out in outcomes}
        for policy in POLICIES:
            plain, streamed = by_door["proxy", policy], by_door["stream", policy]
            if plain.result is None or streamed.result is None:
                problems.append(f"{convo.name} ({twin}) under {policy}: {plain.problem or streamed.problem}")
            elif verdicts(plain, reply) != verdicts(streamed, reply):
                problems.append(f"{convo.name} ({twin}) under {policy}: plain {verdicts(plain, reply)} != "
                                f"streamed {verdicts(streamed, reply)}")
    assert not problems, f"{convo.before}\n{convo.false!r} / {convo.true!r}\n" + "\n".join(problems)


# A family that finds a guard defect not fixed yet: strict, so the fix shows as an unexpected pass.
KNOWN_DEFECTS: dict[str, str] = {}


def _families(names: tuple[str, ...]) -> list[Any]:
    return [pytest.param(name, id=name.replace(" ", "-").replace(",", ""), marks=[pytest.mark.xfail(
        strict=True, reason=KNOWN_DEFECTS[name])] if name in KNOWN_DEFECTS else []) for name in names]


@pytest.mark.parametrize("kind", _families(ANSWERS))
@GENERATED
@given(data=st.data())
def test_a_short_answer_at_any_distance(doors: Doors, kind: str, data: st.DataObject) -> None:
    check(doors, data.draw(answers(kind)))


@pytest.mark.parametrize("shape", _families(FORMATS))
@GENERATED
@given(data=st.data())
def test_a_statement_in_any_format(doors: Doors, shape: str, data: st.DataObject) -> None:
    check(doors, data.draw(statements(shape)))
