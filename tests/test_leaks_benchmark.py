"""benchmarks/everyday/leaks.py: its leak test, and no leak of the default pipeline in any category
of its cases (#20); benchmarks/results/leaks.json, the committed run, records the same."""

import json
from pathlib import Path

import pytest

from .conftest import load_script

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "leaks.json"


@pytest.fixture(scope="module")
def leaks():
    return load_script("benchmarks", "everyday", "leaks.py")


def test_leak_is_case_and_normalisation_insensitive(leaks):
    case = {"must_not_appear": ["Hénault", "+33"], "why": "t"}
    assert leaks.leaked(case, "[PERSON] at +33 [CODE]") == ["+33"]
    assert leaks.leaked(case, "HE\u0301NAULT called") == ["Hénault"]
    assert leaks.leaked(case, "[PERSON] at [CODE]") == []


def test_leak_is_read_through_markup(leaks):
    case = {"must_not_appear": ["John Smith", "Ibáñez", "<John>"], "why": "t"}
    assert leaks.leaked(case, "<b>John</b> Smith, Ib&aacute;&ntilde;ez") == ["John Smith", "Ibáñez"]
    assert leaks.leaked(case, "<b>[PERSON]</b> [PERSON]") == []
    assert leaks.leaked(case, "<b>John Smith</b>") == ["John Smith"]
    assert leaks.leaked(case, "From <John>") == ["<John>"]  # the raw output is read too


def test_cases_are_well_formed(leaks):
    cases = leaks.read_cases(leaks.CASES)
    assert len(cases) >= 200
    assert {"clinical", "thread", "chat", "court", "form", "language", "markup", "code"} <= {c["category"] for c in cases}
    for case in cases:
        assert case["text"] and case["why"] and case["must_not_appear"]
        # every string is readable in the input (else the case tests nothing)
        assert leaks.leaked(case, case["text"]) == case["must_not_appear"], case["why"]


@pytest.mark.filterwarnings("ignore:\\[W011\\]:UserWarning")  # a case in Spanish words (a CSV row) is meant
def test_default_leaks_only_where_mask_all_does(leaks, default_nlp):
    """Every kind, the everyday ones added before their fixes included, is at 0 for default but
    identifiers of the red-team probes that no detector finds or that mask-all (strict) leaks too:
    names that are words in chat or a court list, a Vietnamese given name, a lower-case name
    without a cue (docs/default.md, known gaps). The run matches the committed one."""
    cases = leaks.read_cases(leaks.CASES)
    docs = list(default_nlp.pipe([c["text"] for c in cases]))
    leaked = [i for i, (c, d) in enumerate(zip(cases, docs)) if leaks.leaked(c, d._.sanitized)]
    results = json.loads(RESULTS.read_text(encoding="utf8"))
    assert leaked == sorted(leak["index"] for leak in results["default"]["leaks"])
    assert set(leaked) <= {leak["index"] for leak in results["strict"]["leaks"]}
    assert min(leaked, default=606) >= 606  # none of the cases before the red-team probes


def test_committed_results_cover_every_case_and_pin_the_counts(leaks):
    results = json.loads(RESULTS.read_text(encoding="utf8"))
    cases = len(leaks.read_cases(leaks.CASES))
    assert {name: results[name]["texts"] for name in results} == {name: cases for name in results}
    # the counts of the committed run (#20): a rerun that leaks more is a regression
    # court: 2 since pii_extend, risk_stack's context features and its recall-first threshold 0.4 (docs/court.md)
    # since the 202 everyday cases (written before their fixes): default 50 -> 28, strict 41 -> 26;
    # letter-spaced OCR words read whole in pii_text_view's view: default 26, strict 23; card
    # security codes and PINs after their label (pii_codes' security_code): 25, 22; logins written
    # from a name ("fatima.zahra", pii_coref): 24, 21; the town of a postal address with its
    # postcode (pii_codes): 22, 19; ... 2, 2; names after a kinship word in lower case, names repeated
    # without diacritics, a listed given and family name typed ORG (8 cases written first): 0, 0; 22 whole
    # everyday documents (letters, notes, records, chat, CVs) written first leaked in 3, fixed: 0, 0; 18 more
    # (forms and ids of 8 countries, OCR, CSV, logs, voicemail) leaked in 4, fixed but "Will Rose": 1, 1
    # house and flat numbers before a street (4 cases written first; 1 leaked, "Flat 9"): 1, 1
    # lists headed by people, chat-log speakers, prescriptions (9 cases written first; 6 leaked): 0, 0
    # accurate (the torch detector, mask-all), gated from that run on: 17; with pii_propn in its detector: 4;
    # with default's decision (relabelled after it; 2 cases written first, OCR and a house number): 4
    # health facts (6 cases written first; default leaked in 6, strict in 3): default, strict 0, court 25 -> 30
    # the annotated everyday documents (15 cases written first): ensemble 20 -> 19, court 30 -> 29 ("kasia's address")
    # the health conditions of a named person (4 cases written first; court keeps health facts: 29 -> 33)
    # the age of a named person (6 cases written first; default leaked in 5; court keeps "age 52": 34) and
    # a login in a PAM session line (2 cases written first; every pipeline leaked both, pii_codes' pam_user)
    # a group chat's speakers, one with a house number in parentheses (2 cases written first; default leaked both)
    # a red-team probe: an age in apposition, a lower-case postcode and street (3 written first; default leaked
    # all 3, strict 2; court keeps the age: 35)
    # a red-team probe of 81 everyday texts (written first; default leaked in 21, strict in 20): JSON
    # and log keys as tokens, name and ZIP values, plates, cashtags, app handles, chat cues, ages
    # in parentheses, a surname after a nickname: 5 detector misses left in both
    # a third (121 written first; default leaked in 26, strict in 22): Reddit users, access, sudo and
    # FTP logs, FHIR, LDAP and calendar names, passports' machine-readable names, sign-offs with
    # words, a form's name field: 17 left in both, the same texts
    # three probes more (100 everyday texts, 100 of care, school, housing and family chats, 80 legal
    # texts; written first: default leaked in 10, 18 and 13, strict in 9, 14 and 5): kinship and
    # coordinated names that are words, chat lead words, copula ages, initials, spoken numbers,
    # boxed digits, titled streets, a partner after "& her bf": 24 left in both, the same texts
    # two probes more (100 letters, claims, HR, tickets, transcripts...; 100 from English-speaking
    # places other than England; written first: default leaked in 13 and 5, strict in 10 and 3):
    # quoted aliases, court lists' parties, greeted names, form blanks, validated e-mail addresses,
    # chat whose capitals are names, "me n Sunday", a rule's span keeping its name; the refit
    # decision's four kept spans ("Princess's shift", "was then 22") by rules, a capitals name line,
    # two lower-case listed names joined by "and": 18 left in both
    # a ninth probe (100 letters, notes, chat, forms, court rulings...; written first: default leaked in
    # 13, strict in 11): a rural delivery route, OCR's letters for digits, a role in parentheses, spelled
    # dots of an e-mail's user, a forum quote's author, a spelled-out name, "mention it to": 24 left in both
    # a tenth (100 lower-case chats and group chats with names of many cultures, handles, logs, CSV rows,
    # plates, transcripts...; written first: default leaked in 27, strict in 28): a chat name word's
    # possessive, "grab", "welcome", "said", "ask for", "name's", a friend's name, a log's "as user", a
    # labelled plate, an Indian house number, CSV name and contact columns, spoken and spelled codes, a
    # spelled name of any type, a nickname in parentheses, a glued sign-off dash, app handles with a
    # hyphen: 36 left in default, 37 in strict; the stacks refit after them kept three more in default
    # (a Polish postcode, a grievance's number, a spelled postcode), code rules now
    pinned = {"default": 36, "strict": 37, "accurate": 50, "ensemble": 143, "court": 184}
    assert {name: results[name]["texts_with_leak"] for name in pinned} == pinned
