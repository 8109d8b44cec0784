"""The conformance suite's conversational world: chats whose false statement lives in their
context, each with an all-true twin, and a checker whose extractor decontextualizes as a capable model does.

Each conversation is the turns before the reply, a reply holding one false statement (``wrong``: its words as
the reply writes them) and its twin, the same reply made true. Shapes: short answers ("Sydney."), yes or no
to the question or to one asked a turn later, follow-ups whose subject is one to three turns back, headings
whose subject a list item reads ("Facts about Curie:" / "- She won three Nobel Prizes."), names written in a
shorter or longer form than the claim writes them, quoted and hedged statements, thanks and links around them.

The extractor double writes, for each statement of the reply it is given (:class:`Said`), the claim a capable
model writes, self-contained ("Mount Everest is 9,500 m tall." for "It is 9,500 m tall."): never the reply's
sentence as it stands; with each claim, the number of the sentence it is drawn from, as the prompt numbers
them ("[S2] ..."), or (``numbered=False``) the claims alone, as a model that cannot say where each comes
from. It writes it only when what a model needs to resolve the statement is in its prompt (``needs``: the
question, an earlier turn, the heading), so a check that does not show the extractor the conversation, or
the heading, gets no claim, and must say the statement is unchecked. The fast checker
decides by the world's truth (each claim's label), quoting the conversation's passage.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted_library import stance_of
from tests.guard.conformance.scenarios import Checker
from tests.guard.support import window_answer


@dataclass(frozen=True)
class Said:
    """One statement of a reply as a capable extractor reads it."""

    sentence: str  # the reply's words it is read from (found in the extractor's text)
    claim: str  # the claim written for it, self-contained
    true: bool
    needs: tuple[str, ...] = ()  # what the prompt must show for the statement to be resolved


@dataclass(frozen=True)
class Conversation:
    name: str
    before: list[dict[str, Any]]  # the turns before the reply
    false: str  # the reply with a false statement
    true: str  # its all-true twin
    wrong: str  # the false statement's words in ``false``
    said: tuple[Said, ...]
    passage: str = ""  # what the evidence says (the true claims, unless given)
    shape: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def evidence(self) -> list[dict[str, str]]:
        text = self.passage or " ".join(s.claim for s in self.said if s.true)
        return [{"title": f"Almanac: {self.name}", "text": text}]


def _ask(*turns: str) -> list[dict[str, Any]]:
    """Alternating person and assistant turns, the person's first."""
    return [{"role": "user" if n % 2 == 0 else "assistant", "content": t} for n, t in enumerate(turns)]


def F(sentence: str, claim: str, *needs: str) -> Said:
    return Said(sentence, claim, False, needs)


def T(sentence: str, claim: str, *needs: str) -> Said:
    return Said(sentence, claim, True, needs)


def _short(name: str, question: str, false: str, true: str, false_claim: str, true_claim: str,
           opening: str = "") -> Conversation:
    """A short answer, after ``opening`` (a greeting the gate sets aside)."""
    return Conversation(name, _ask(question), opening + false, opening + true, false,
                        (F(false, false_claim, question), T(true, true_claim, question)), shape="short answer")


WORLD: list[Conversation] = [
    # Short answers: the fact lives in the question.
    _short("australia-capital", "Which city is Australia's capital?", "Sydney.", "Canberra.",
           "Sydney is the capital of Australia.", "Canberra is the capital of Australia."),
    _short("largest-planet", "What is the largest planet in the Solar System?", "Saturn.", "Jupiter.",
           "Saturn is the largest planet in the Solar System.", "Jupiter is the largest planet in the Solar System."),
    _short("pride-and-prejudice", "Who wrote Pride and Prejudice?", "Charlotte Brontë.", "Jane Austen.",
           "Charlotte Brontë wrote Pride and Prejudice.", "Jane Austen wrote Pride and Prejudice."),
    _short("berlin-wall", "In which year did the Berlin Wall fall?", "1991.", "1989.",
           "The fall of the Berlin Wall was in 1991.", "The fall of the Berlin Wall was in 1989."),
    _short("gold-symbol", "What is the chemical symbol for gold?", "Ag.", "Au.",
           "The chemical symbol for gold is Ag.", "The chemical symbol for gold is Au."),
    _short("spider-legs", "How many legs does a spider have?", "Six.", "Eight.",
           "A spider has six legs.", "A spider has eight legs."),
    _short("largest-ocean", "Which ocean is the largest?", "The Atlantic.", "The Pacific.",
           "The Atlantic is the largest ocean.", "The Pacific is the largest ocean."),
    _short("boiling-point", "At what temperature does water boil at sea level, in degrees Celsius?",
           "At 90 degrees.", "At 100 degrees.", "Water boils at 90 degrees Celsius at sea level.",
           "Water boils at 100 degrees Celsius at sea level."),
    _short("longest-french-river", "What is the longest river in France?", "The Rhône.", "The Loire.",
           "The Rhône is the longest river in France.", "The Loire is the longest river in France.",
           opening="Great question! "),
    # Yes or no, to the question just asked.
    Conversation("apollo-1972", _ask("Did Apollo 11 land on the Moon in 1972?"), "Yes.", "No.", "Yes.", (
        F("Yes.", "Apollo 11 landed on the Moon in 1972.", "Apollo 11 land on the Moon in 1972"),
        T("No.", "Apollo 11 did not land on the Moon in 1972.", "Apollo 11 land on the Moon in 1972")),
        passage="Apollo 11 landed on the Moon in 1969, not in 1972.", shape="yes or no"),
    Conversation("great-wall-moon", _ask("Is the Great Wall of China visible from the Moon with the naked eye?"),
                 "Yes, it is.", "No, it is not.", "Yes, it is.", (
        F("Yes, it is.", "The Great Wall of China is visible from the Moon with the naked eye.", "Great Wall"),
        T("No, it is not.", "The Great Wall of China is not visible from the Moon with the naked eye.",
          "Great Wall")), shape="yes or no"),
    Conversation("kilimanjaro", _ask("Is Mount Kilimanjaro in Kenya?"), "Yes.", "No, it is in Tanzania.", "Yes.", (
        F("Yes.", "Mount Kilimanjaro is in Kenya.", "Mount Kilimanjaro in Kenya"),
        T("No, it is in Tanzania.", "Mount Kilimanjaro is not in Kenya.", "Mount Kilimanjaro in Kenya"),
        T("No, it is in Tanzania.", "Mount Kilimanjaro is in Tanzania.", "Mount Kilimanjaro")),
        shape="yes or no"),
    Conversation("tokyo-capital", _ask("Is Tokyo the capital of Japan?"), "No, Kyoto is.", "Yes, it is.",
                 "No, Kyoto is.", (
        F("No, Kyoto is.", "Kyoto is the capital of Japan.", "capital of Japan"),
        T("Yes, it is.", "Tokyo is the capital of Japan.", "Is Tokyo the capital of Japan")), shape="yes or no"),
    # Yes or no a turn or two after the subject was named.
    Conversation("eiffel-finished", _ask("Tell me about the Eiffel Tower.",
                                         "The Eiffel Tower is a wrought-iron tower in Paris.",
                                         "Was it finished in 1920?"),
                 "Yes.", "No, it was finished in 1889.", "Yes.", (
        F("Yes.", "The Eiffel Tower was finished in 1920.", "Eiffel Tower is a wrought-iron", "finished in 1920"),
        T("No, it was finished in 1889.", "The Eiffel Tower was finished in 1889.", "Eiffel Tower is a wrought")),
        passage="The Eiffel Tower was finished in 1889.", shape="yes or no across turns"),
    Conversation("amazon-ocean", _ask("What do you know about the Amazon River?",
                                      "The Amazon River flows through South America.",
                                      "Does it flow into the Pacific Ocean?"),
                 "Yes.", "No, it flows into the Atlantic Ocean.", "Yes.", (
        F("Yes.", "The Amazon River flows into the Pacific Ocean.", "Amazon River flows through",
          "into the Pacific Ocean"),
        T("No, it flows into the Atlantic Ocean.", "The Amazon River flows into the Atlantic Ocean.",
          "Amazon River flows through")),
        passage="The Amazon River flows into the Atlantic Ocean.", shape="yes or no across turns"),
    Conversation("curie-literature", _ask("Tell me about Marie Curie.", "Marie Curie was a physicist and chemist.",
                                          "Where was she born?", "She was born in Warsaw.",
                                          "Was she awarded a Nobel Prize in Literature?"),
                 "Yes.", "No.", "Yes.", (
        F("Yes.", "Marie Curie was awarded a Nobel Prize in Literature.", "Marie Curie was a physicist",
          "Nobel Prize in Literature"),
        T("No.", "Marie Curie was not awarded a Nobel Prize in Literature.", "Marie Curie was a physicist",
          "Nobel Prize in Literature")),
        passage="Marie Curie was awarded Nobel Prizes in Physics and Chemistry, never one in Literature.",
        shape="yes or no two turns on"),
    # Follow-ups whose subject is one to three turns back.
    Conversation("everest-height", _ask("Tell me about Mount Everest.", "Mount Everest is the highest mountain on "
                                        "Earth.", "How tall is it?"),
                 "It is 9,500 m tall.", "It is 8,849 m tall.", "It is 9,500 m tall.", (
        F("It is 9,500 m tall.", "Mount Everest is 9,500 m tall.", "Mount Everest is the highest"),
        T("It is 8,849 m tall.", "Mount Everest is 8,849 m tall.", "Mount Everest is the highest")),
        shape="follow-up, one turn back"),
    Conversation("newton-born", _ask("Tell me about Isaac Newton.", "Isaac Newton was an English physicist.",
                                     "When was he born?"),
                 "In 1743.", "In 1643.", "In 1743.", (
        F("In 1743.", "Isaac Newton was born in 1743.", "Isaac Newton was an English", "When was he born"),
        T("In 1643.", "Isaac Newton was born in 1643.", "Isaac Newton was an English", "When was he born")),
        shape="follow-up, elided subject"),
    Conversation("burj-height", _ask("What is the tallest building in the world?", "The Burj Khalifa in Dubai.",
                                     "How tall is it?"),
                 "It is 628 m tall.", "It is 828 m tall.", "It is 628 m tall.", (
        F("It is 628 m tall.", "The Burj Khalifa is 628 m tall.", "The Burj Khalifa in Dubai"),
        T("It is 828 m tall.", "The Burj Khalifa is 828 m tall.", "The Burj Khalifa in Dubai")),
        shape="follow-up, one turn back"),
    Conversation("mars-moons", _ask("Which planet is known as the Red Planet?", "Mars.",
                                    "How many moons does it have?"),
                 "It has three moons.", "It has two moons.", "It has three moons.", (
        F("It has three moons.", "Mars has three moons.", "Assistant: Mars."),
        T("It has two moons.", "Mars has two moons.", "Assistant: Mars.")), shape="follow-up, one turn back"),
    Conversation("titanic-sank", _ask("Tell me about the Titanic.", "The Titanic was a British passenger liner.",
                                      "When did it sink?"),
                 "It sank in 1915.", "It sank in 1912.", "It sank in 1915.", (
        F("It sank in 1915.", "The Titanic sank in 1915.", "The Titanic was a British"),
        T("It sank in 1912.", "The Titanic sank in 1912.", "The Titanic was a British")),
        shape="follow-up, one turn back"),
    Conversation("beatles-members", _ask("Tell me about the Beatles.", "The Beatles were a rock band from "
                                         "Liverpool.", "How many members did they have?"),
                 "They had five members.", "They had four members.", "They had five members.", (
        F("They had five members.", "The Beatles had five members.", "The Beatles were a rock band"),
        T("They had four members.", "The Beatles had four members.", "The Beatles were a rock band")),
        shape="follow-up, one turn back"),
    Conversation("danube-end", _ask("Tell me about the Danube.", "The Danube is a river in Europe.",
                                    "Which cities does it pass?", "It passes Vienna, Budapest and Belgrade.",
                                    "And where does it end?"),
                 "It ends in the North Sea.", "It ends in the Black Sea.", "It ends in the North Sea.", (
        F("It ends in the North Sea.", "The Danube ends in the North Sea.", "The Danube is a river"),
        T("It ends in the Black Sea.", "The Danube ends in the Black Sea.", "The Danube is a river")),
        shape="follow-up, two turns back"),
    Conversation("louvre-opened", _ask("Tell me about the Louvre.", "The Louvre is a museum in Paris.",
                                       "What is its most famous painting?", "The Mona Lisa.",
                                       "Who painted that?", "Leonardo da Vinci.", "When did the museum open?"),
                 "It opened in 1893.", "It opened in 1793.", "It opened in 1893.", (
        F("It opened in 1893.", "The Louvre opened in 1893.", "The Louvre is a museum"),
        T("It opened in 1793.", "The Louvre opened in 1793.", "The Louvre is a museum")),
        shape="follow-up, three turns back"),
    Conversation("brazil-capital", _ask("What is the capital of Canada?", "Ottawa.", "And of Brazil?"),
                 "Rio de Janeiro.", "Brasília.", "Rio de Janeiro.", (
        F("Rio de Janeiro.", "Rio de Janeiro is the capital of Brazil.", "capital of Canada", "And of Brazil"),
        T("Brasília.", "Brasília is the capital of Brazil.", "capital of Canada", "And of Brazil")),
        shape="follow-up, elided question"),
    Conversation("armstrong-year", _ask("Who was the first person to walk on the Moon?", "Neil Armstrong.",
                                        "In which year did that happen?"),
                 "In 1967.", "In 1969.", "In 1967.", (
        F("In 1967.", "Neil Armstrong walked on the Moon in 1967.", "first person to walk on the Moon",
          "Neil Armstrong"),
        T("In 1969.", "Neil Armstrong walked on the Moon in 1969.", "first person to walk on the Moon",
          "Neil Armstrong")), shape="follow-up, one turn back"),
    # Headings whose subject the items read; names shorter or longer than the claims write them.
    Conversation("curie-facts", _ask("Tell me about Curie."),
                 "Facts about Curie:\n- She won three Nobel Prizes.\n- She was born in Warsaw.",
                 "Facts about Curie:\n- She won two Nobel Prizes.\n- She was born in Warsaw.",
                 "- She won three Nobel Prizes.", (
        F("- She won three Nobel Prizes.", "Marie Curie won three Nobel Prizes.", "Facts about Curie:"),
        T("- She won two Nobel Prizes.", "Marie Curie won two Nobel Prizes.", "Facts about Curie:"),
        T("- She was born in Warsaw.", "Marie Curie was born in Warsaw.", "Facts about Curie:")),
        shape="heading, longer name"),
    Conversation("nordic-capitals", _ask("What are the capitals of the Nordic countries?"),
                 "Capitals of the Nordic countries:\n- Norway: Oslo\n- Sweden: Bergen\n- Finland: Helsinki",
                 "Capitals of the Nordic countries:\n- Norway: Oslo\n- Sweden: Stockholm\n- Finland: Helsinki",
                 "- Sweden: Bergen", (
        T("- Norway: Oslo", "Oslo is the capital of Norway.", "Capitals of the Nordic countries:"),
        F("- Sweden: Bergen", "Bergen is the capital of Sweden.", "Capitals of the Nordic countries:"),
        T("- Sweden: Stockholm", "Stockholm is the capital of Sweden.", "Capitals of the Nordic countries:"),
        T("- Finland: Helsinki", "Helsinki is the capital of Finland.", "Capitals of the Nordic countries:")),
        shape="heading, short items"),
    Conversation("olympic-hosts", _ask("Which cities hosted the recent Summer Olympics?"),
                 "Summer Olympics host cities:\n- 2012: London\n- 2016: Paris",
                 "Summer Olympics host cities:\n- 2012: London\n- 2016: Rio de Janeiro",
                 "- 2016: Paris", (
        T("- 2012: London", "London hosted the 2012 Summer Olympics.", "Summer Olympics host cities:"),
        F("- 2016: Paris", "Paris hosted the 2016 Summer Olympics.", "Summer Olympics host cities:"),
        T("- 2016: Rio de Janeiro", "Rio de Janeiro hosted the 2016 Summer Olympics.",
          "Summer Olympics host cities:")), shape="heading, years as items"),
    Conversation("mont-blanc", _ask("Give me the key facts about Mont Blanc."),
                 "## Mont Blanc\n- Height: 5,808 m\n- Countries: France and Italy",
                 "## Mont Blanc\n- Height: 4,808 m\n- Countries: France and Italy",
                 "- Height: 5,808 m", (
        F("- Height: 5,808 m", "The height of Mont Blanc is 5,808 m.", "## Mont Blanc"),
        T("- Height: 4,808 m", "The height of Mont Blanc is 4,808 m.", "## Mont Blanc"),
        T("- Countries: France and Italy", "Mont Blanc is in France and Italy.", "## Mont Blanc")),
        shape="markdown heading"),
    Conversation("shakespeare-card", _ask("Quick facts on Shakespeare, please."),
                 "**Shakespeare**\n- Born: 1664\n- Wrote: Hamlet",
                 "**Shakespeare**\n- Born: 1564\n- Wrote: Hamlet",
                 "- Born: 1664", (
        F("- Born: 1664", "William Shakespeare was born in 1664.", "**Shakespeare**"),
        T("- Born: 1564", "William Shakespeare was born in 1564.", "**Shakespeare**"),
        T("- Wrote: Hamlet", "William Shakespeare wrote Hamlet.", "**Shakespeare**")),
        shape="bold heading, longer name"),
    Conversation("largest-countries", _ask("Which are the largest countries by area?"),
                 "Largest countries by area:\n1. Russia\n2. China",
                 "Largest countries by area:\n1. Russia\n2. Canada",
                 "2. China", (
        T("1. Russia", "Russia is the largest of the countries by area.", "Largest countries by area:"),
        F("2. China", "China is the second largest of the countries by area.", "Largest countries by area:"),
        T("2. Canada", "Canada is the second largest of the countries by area.", "Largest countries by area:")),
        shape="heading, numbered items"),
    Conversation("einstein-born", _ask("When was Einstein born?"),
                 "Einstein was born in 1889, in Ulm.", "Einstein was born in 1879, in Ulm.",
                 "Einstein was born in 1889, in Ulm.", (
        F("Einstein was born in 1889, in Ulm.", "Albert Einstein was born in 1889.", "Einstein"),
        T("Einstein was born in 1879, in Ulm.", "Albert Einstein was born in 1879.", "Einstein"),
        T("in Ulm.", "Albert Einstein was born in Ulm.", "Einstein")), shape="longer name"),
    Conversation("leonardo-born", _ask("Tell me about Leonardo da Vinci."),
                 "Leonardo was born in 1552.", "Leonardo was born in 1452.", "Leonardo was born in 1552.", (
        F("Leonardo was born in 1552.", "Leonardo da Vinci was born in 1552.", "Leonardo da Vinci"),
        T("Leonardo was born in 1452.", "Leonardo da Vinci was born in 1452.", "Leonardo da Vinci")),
        shape="shorter name in the reply"),
    Conversation("jupiter-facts", _ask("Tell me two facts about Jupiter."),
                 "Sure! Here are two:\n- It is the largest planet in the Solar System.\n- It has no moons.",
                 "Sure! Here are two:\n- It is the largest planet in the Solar System.\n- It has 95 known moons.",
                 "- It has no moons.", (
        T("- It is the largest planet in the Solar System.", "Jupiter is the largest planet in the Solar System.",
          "facts about Jupiter"),
        F("- It has no moons.", "Jupiter has no moons.", "facts about Jupiter"),
        T("- It has 95 known moons.", "Jupiter has 95 known moons.", "facts about Jupiter")),
        shape="heading and question, pronoun items"),
    # Quoted and hedged statements: what the reply asserts, without the frame.
    Conversation("pisa-quoted", _ask("Where is the Leaning Tower of Pisa?"),
                 'As my guidebook puts it, "the Leaning Tower of Pisa is in Florence."',
                 'As my guidebook puts it, "the Leaning Tower of Pisa is in Pisa."',
                 'As my guidebook puts it, "the Leaning Tower of Pisa is in Florence."', (
        F("the Leaning Tower of Pisa is in Florence.", "The Leaning Tower of Pisa is in Florence."),
        T("the Leaning Tower of Pisa is in Pisa.", "The Leaning Tower of Pisa is in Pisa.")), shape="quoted"),
    Conversation("pisa-plaque", _ask("When was the Leaning Tower of Pisa built?"),
                 'As the plaque puts it, "the tower was begun in 1273."',
                 'As the plaque puts it, "the tower was begun in 1173."',
                 'As the plaque puts it, "the tower was begun in 1273."', (
        F("the tower was begun in 1273.", "The Leaning Tower of Pisa was begun in 1273.", "Leaning Tower of Pisa"),
        T("the tower was begun in 1173.", "The Leaning Tower of Pisa was begun in 1173.", "Leaning Tower of Pisa")),
        shape="quoted, subject in the question"),
    Conversation("longest-african-river", _ask("Which is the longest river in Africa?"),
                 "I believe the Amazon is the longest river in Africa.",
                 "I believe the Nile is the longest river in Africa.",
                 "I believe the Amazon is the longest river in Africa.", (
        F("the Amazon is the longest river in Africa.", "The Amazon is the longest river in Africa."),
        T("the Nile is the longest river in Africa.", "The Nile is the longest river in Africa.")),
        shape="hedged"),
    Conversation("mona-lisa-painter", _ask("Who painted the Mona Lisa?"),
                 "If I remember correctly, the Mona Lisa was painted by Michelangelo.",
                 "If I remember correctly, the Mona Lisa was painted by Leonardo da Vinci.",
                 "If I remember correctly, the Mona Lisa was painted by Michelangelo.", (
        F("the Mona Lisa was painted by Michelangelo.", "The Mona Lisa was painted by Michelangelo."),
        T("the Mona Lisa was painted by Leonardo da Vinci.", "The Mona Lisa was painted by Leonardo da Vinci.")),
        shape="hedged"),
    Conversation("tower-of-london", _ask("When was the Tower of London built?"),
                 "It was probably built in 1378.", "It was probably built in 1078.", "It was probably built in 1378.", (
        F("It was probably built in 1378.", "The Tower of London was built in 1378.", "Tower of London"),
        T("It was probably built in 1078.", "The Tower of London was built in 1078.", "Tower of London")),
        shape="hedged, subject in the question"),
    Conversation("moon-distance", _ask("How far is the Moon?"),
                 "According to NASA, the Moon is about 484,000 km from Earth.",
                 "According to NASA, the Moon is about 384,000 km from Earth.",
                 "According to NASA, the Moon is about 484,000 km from Earth.", (
        F("the Moon is about 484,000 km from Earth.", "The Moon is about 484,000 km from Earth."),
        T("the Moon is about 384,000 km from Earth.", "The Moon is about 384,000 km from Earth.")),
        shape="attributed"),
    # Links and thanks around the statement: never claims themselves.
    Conversation("colosseum-link", _ask("Where is the Colosseum?"),
                 "It is in Milan. More at https://en.wikipedia.org/wiki/Colosseum_Rome_details.",
                 "It is in Rome. More at https://en.wikipedia.org/wiki/Colosseum_Rome_details.",
                 "It is in Milan.", (
        F("It is in Milan.", "The Colosseum is in Milan.", "Where is the Colosseum"),
        T("It is in Rome.", "The Colosseum is in Rome.", "Where is the Colosseum")), shape="link"),
    Conversation("parthenon-thanks", _ask("What is the most famous temple in Greece?"),
                 "Thanks for asking about Greece! Its most famous temple, the Parthenon, stands in Sparta.",
                 "Thanks for asking about Greece! Its most famous temple, the Parthenon, stands in Athens.",
                 "Its most famous temple, the Parthenon, stands in Sparta.", (
        F("the Parthenon, stands in Sparta.", "The Parthenon stands in Sparta."),
        T("the Parthenon, stands in Athens.", "The Parthenon stands in Athens.")), shape="thanks"),
]


def truth(world: list[Conversation] | None = None) -> dict[str, str]:
    """Each claim of ``world`` (default :data:`WORLD`), folded, with its label."""
    return {_fold(s.claim): "SUPPORTS" if s.true else "REFUTES" for c in world or WORLD for s in c.said}


def _fold(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".")


def drawn_from(text: str, sentence: str) -> int | None:
    """The number of the sentence of the extractor's ``text`` ("[S1] ... [S2] ...") that holds ``sentence``."""
    at = text.find(sentence)
    marks = [int(m.group(1)) for m in re.finditer(r"\[S(\d+)\]", text[:at + 1])] if at >= 0 else []
    return marks[-1] if marks else None


def _section(prompt: str, start: str, end: str) -> str:
    at = prompt.find(start)
    if at < 0:
        return ""
    rest = prompt[at + len(start):]
    stop = rest.find(end)
    return rest if stop < 0 else rest[:stop]


class WorldChecker(Checker):
    """The guard's models in the conversational world (module docstring); faults as the suite's checker."""

    def __init__(self, world: list[Conversation] | None = None, *, numbered: bool = True) -> None:
        super().__init__()
        self.world = world or WORLD
        self.truth = truth(self.world)
        self.numbered = numbered  # whether it says which sentence each claim is drawn from
        self.extractions: list[str] = []  # every extraction prompt, for the test that reads what was shown

    def respond(self, call: CallInfo, messages: list[Message], params: GenParams) -> str:
        prompt = messages[0]["content"]
        if call.prompt.startswith("guard_window"):  # both prompts' answers at once (tests/guard/support.py)
            def apart(name: str) -> Callable[[str], str]:
                return lambda text: self.respond(replace(call, prompt=name), [{"role": "user", "content": text}],
                                                 params)
            return window_answer(prompt, apart("claims_extract"), apart("guard_fast"), self.proposed)
        if call.prompt.startswith("claims_extract"):
            self.extractions.append(prompt)
            text = _section(prompt, "\nText:\n", "\n\nReply with a JSON object only")
            found: dict[str, list[int]] = {}
            for s in (s for c in self.world for s in c.said):
                if s.sentence in text and all(need in prompt for need in s.needs):
                    found.setdefault(s.claim, []).extend(n for n in [drawn_from(text, s.sentence)] if n)
            if not self.numbered:
                return json.dumps({"claims": list(found)})
            return json.dumps({"claims": [{"claim": claim, "sentences": sorted(set(numbers))}
                                          for claim, numbers in found.items()]})
        if call.prompt.startswith("guard_stance"):
            return stance_of(prompt, lambda claim: self.truth.get(_fold(claim), "NOT ENOUGH INFO"))
        if call.prompt.startswith("guard_fast"):
            stated = re.search(r"^Statement: (.*)$", prompt, re.M)
            claim = stated.group(1) if stated else ""
            label = self.truth.get(_fold(claim), "NOT ENOUGH INFO")
            passage = re.search(r"^\[1\] [^:]*: (.*)$", prompt, re.M)
            if label == "NOT ENOUGH INFO" or passage is None:
                return json.dumps({"label": "NOT ENOUGH INFO", "passage": 0, "quote": ""})
            sentences = re.split(r"(?<=\.) ", passage.group(1))
            words = set(re.findall(r"\w+", claim.lower()))
            quote = max(sentences, key=lambda s: len(words & set(re.findall(r"\w+", s.lower()))))
            return json.dumps({"label": label, "passage": 1, "quote": quote})
        return super().respond(call, messages, params)

