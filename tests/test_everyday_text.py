"""Everyday text (letters, chat, logs, forms): plain words stay plain, and the identifiers of
the grown leak benchmark's kinds are found (pii_refine's drop_plain_words, pii_codes' everyday
patterns, the decider's protect_code_shaped; benchmarks/everyday/false_positives.py, benchmarks/everyday/leaks.py)."""
import warnings

import pytest
import spacy

from spacy_sanitize.decide.rules import ProtectRules, code_shaped
from spacy_sanitize.detect.codes import DEFAULT_PATTERNS, CodeDetector
from spacy_sanitize.errors import Warnings
from spacy_sanitize.pipeline import _resolve_alias


@pytest.mark.parametrize("text", [
    "Please find attached the report you asked for.",
    "Insert the batteries before switching on.",
    "DISCHARGE SUMMARY\nPatient comfortable overnight.",
    "Dear Sir or Madam,",
    "Kind regards,\nthe support team",
    "Sorry I missed your call this morning.",
    "Great job everyone 🎉",
    # a prescription that names no one: its drugs and doses describe no one
    "Amoxicillin 500 mg three times daily for 7 days.",
    "Take Paracetamol 1 g four times daily.",
    "Metformin 500mg twice a day with meals.",
    "Omeprazole 20 mg each morning.",
])
def test_plain_sentences_stay_plain(default_nlp, text):
    assert default_nlp(text)._.sanitized == text


@pytest.mark.parametrize("text, name", [
    ("Grace called this morning.", "Grace"),          # a name that is also a word
    ("Kind regards,\nPriya", "Priya"),                 # the line after a sign-off
    ("Smith was born in Leeds. Smith studied law.", "Smith"),  # a listed family name
    ("Okonkwo arrived late. Later Okonkwo left.", "Okonkwo"),   # a rare word
])
def test_names_at_a_sentence_start_stay_masked(default_nlp, text, name):
    assert name not in default_nlp(text)._.sanitized


def _refined(text, spans, **config):
    """pii_refine over the recognizer spans ``(start_char, end_char, label)`` of ``text``."""
    nlp = spacy.blank("en")
    refine = nlp.add_pipe("pii_refine", config=config)
    doc = nlp.make_doc(text)
    group = []
    for start, end, label in spans:
        span = doc.char_span(start, end, label=label)
        span._.risk_explain = {"detector": "pii_ner"}
        group.append(span)
    doc.spans["pii"] = group
    return [(s.text, s.label_) for s in refine(doc).spans["pii"]]


def test_refine_drops_a_recognizers_plain_words_and_keeps_names():
    text = "Insert the card. Tighten the screw. Baker denied it. Madam, hello."
    spans = [(0, 6, "PERSON"), (17, 24, "MISC"), (36, 41, "PERSON"), (53, 58, "PERSON")]
    assert _refined(text, spans) == [("Baker", "PERSON")]  # "baker" is a name that is also a word
    assert len(_refined(text, spans, drop_plain_words=False)) == 4  # the setting switches it off


def test_refine_drops_everyday_words_of_recipes_logs_and_headings():
    # words the biographies and judgments rarely hold (the dictionary list), after a log level,
    # on a heading line; a one-word DEM at a sentence start ("Analysts warned")
    text = "Whisk the eggs.\nINFO Reloading settings\nCurrent Medications\nAnalysts warned of delays."
    spans = [(0, 5, "PERSON"), (21, 30, "MISC"), (48, 59, "MISC"), (60, 68, "DEM")]
    assert _refined(text, spans) == []


@pytest.mark.parametrize("text, span", [
    ("Cook was arrested in 2010.", (0, 4, "PERSON")),           # an English surname, not the dictionary's word
    ("Hamish Whisk\nSales Manager", (0, 12, "PERSON")),       # a heading-shaped line with a name
    ("ERROR Grzegorz logged in", (6, 14, "PERSON")),           # a given name after a log level
    ("Occupation:\nRetired teacher", (12, 27, "DEM")),        # a DEM of two words describes someone
])
def test_refine_keeps_names_and_descriptions_the_plain_word_rules_could_reach(text, span):
    assert _refined(text, [span]) == [(text[span[0]:span[1]], span[2])]


def test_refine_keeps_a_word_written_as_a_proper_noun_elsewhere():
    text = "Insert the card. Then ask Insert about it."
    assert _refined(text, [(0, 6, "PERSON")]) == [("Insert", "PERSON")]


def test_refine_types_a_number_read_as_a_date_as_a_code():
    text = "Return to: 69003 Lyon, card 3782 822463 10005, in 1998."
    spans = [(11, 16, "DATETIME"), (28, 45, "DATETIME"), (50, 54, "DATETIME")]
    assert _refined(text, spans) == [("69003", "CODE"), ("3782 822463 10005", "CODE"), ("1998", "DATETIME")]


@pytest.mark.parametrize("text, found", [
    ("ping me at @kobrien on twitter", "@kobrien"),
    ("Follow me @yusuf.h08!", "@yusuf.h08"),
    ("pics are on instagram.com/nguyen.linh.photo now", "instagram.com/nguyen.linh.photo"),
    ("slides at fqureshi.github.io", "fqureshi.github.io"),
    ("GET /api/v1/users/ahmad.haddad/profile 200", "ahmad.haddad"),
    ("INFO auth success user=ebrennan ip=10.0.0.1", "ebrennan"),
    ('WARN login failed username="oksana.petrenko" attempts=3', "oksana.petrenko"),
    ("vpn user is mwilliams today", "mwilliams"),
    ("sshd[2231]: Accepted password for hkristiansen from 10.1.1.1", "hkristiansen"),
    ("[09:15] <mei.zhou> anyone got the cert?", "<mei.zhou>"),
    ("Home visit at 53.4808, -2.2426 (her flat).", "53.4808, -2.2426"),
    ("coords 19.0760N 72.8777E today", "19.0760N 72.8777E"),
    ("lat 59.9139 lon 10.7522", "lat 59.9139"),
    ("found at 57°08′54″N 3°38′52″W", "57°08′54″N"),
    ("address as w3w: ///filled.count.soap (her flat)", "///filled.count.soap"),
    ("Norwegian reg EL 48213 (Tesla)", "EL 48213"),
    ("Employee number: 004-77812", "004-77812"),              # a labelled number, however written
    ("Policy no. 77 1203 44, renewal due", "77 1203 44"),
    ("Staff ID 00-4471 has been deactivated.", "00-4471"),
    ("Call me on +44 7700 900391 after six.", "+44 7700 900391"),  # no validator accepts it: masked whole
    ("office +44 (0)20 7946 0018", "+44 (0)20 7946 0018"),
    ("Send it to Calle Mayor 15, 28013 Madrid.", "Calle Mayor 15"),   # street before its number
    ("Send it to Calle Mayor 15, 28013 Madrid.", "28013 Madrid"),
    ("Lieferung an Hauptstraße 7, 10115 Berlin", "Hauptstraße 7"),
    ("Neue Adresse: Birkenweg 3a, Hamburg", "Birkenweg 3a"),
    ('{"actor": {"name": "Ann", "id": "u-77120"}}', "u-77120"),   # an id value, whatever its shape
    ("GET /cart session_id=ab12cd 200", "ab12cd"),
    ("A statement was taken by PC 2241 Sarah Doyle.", "2241"),  # a collar number
    ("DC 5517 Morris interviewed him.", "5517"),
    ("Please bring your National Insurance number (QQ 12 34 56 C).", "QQ 12 34 56"),  # its label, in parentheses
    # a red-team probe's (benchmarks/everyday/leak_cases.jsonl)
    ('{"first":"Oluwadamilare","last":"Ige"}', "Ige"),                      # a name key's value
    ("Refund failed for cardholder='JOHNSON-OBI/ADAEZE' pan=4539", "JOHNSON-OBI/ADAEZE"),
    ('{"name":"Oluwadamilare Ige","ok":true}', "Oluwadamilare Ige"),
    ("Verified with last 4 SSN 0192 and zip 78521.", "78521"),              # a ZIP after its label
    ('"ship":{"zip":"60614"}', "60614"),
    ("the white Swift MH 12 AB 3456 is blocking", "MH 12 AB 3456"),        # India's plates
    ("whoever owns KA-05-MN-2211 pls move it", "KA-05-MN-2211"),
    ("my cashapp is $tayjones_09 if u owe me", "$tayjones_09"),            # a cashtag
    ("yo add me on snap its lils.x0", "lils.x0"),                          # a handle after its app
    ("book a slot on calendly.com/aisling-ohare-physio or text", "calendly.com/aisling-ohare-physio"),
    ('"name":[{"family":"Ivy","given":["Rose"]}]', "Rose"),                # a list's first value (FHIR)
    ("Posted by u/throwaway_kasia88 · 3h", "throwaway_kasia88"),          # a Reddit user
    ('81.2.69.160 - kwame.asante [04/Mar/2025:10:22:01 +0000] "GET / HTTP/1.1" 200', "kwame.asante"),  # an access log's user
    ("Mar  4 09:14:02 web01 sudo:  ewakowalska : TTY=pts/0 ; PWD=/root", "ewakowalska"),
    ("Tue Mar  4 10:01:33 2025 [pid 2211] [oisin.breathnach] OK UPLOAD: Client", "oisin.breathnach"),
    ("meet u outside 7 dunraven rd at 8?", "7 dunraven rd"),                # a street word's abbreviation
    ('ldap bind ok dn="CN=Murphy\\, Seán,OU=Staff,DC=hse,DC=ie"', "Murphy\\, Seán"),  # an LDAP entry's common name
    ("ATTENDEE;CN=Summer Okafor:mailto:summer@example.ie", "Summer Okafor"),  # a calendar's attendee
    ("P<IRLMURPHY<<DECLAN<FRANCIS<<<<<<<<<<<<<<<<<<", "MURPHY<<DECLAN<FRANCIS"),  # a passport's machine-readable name
])
def test_everyday_codes_are_found(text, found):
    detector = CodeDetector("pii_codes", DEFAULT_PATTERNS, "pii", "CODE")
    assert found in [text[start:end] for start, end, _ in detector.find(text)]


@pytest.mark.parametrize("text", ["the user is happy", "Her login is working again", "we met @ 5", "a@b",
                                  "the reference period of 2019", "Patient: 4 hours in recovery", "won +3 to 5",
                                  '"id": "main-header"', "paid: 2019", "see the case (page 4)", "the file (2019 version)",
                                  "quote your policy number (in the letter)",
                                  '{"name":"checkout","last":"2024-01-01"}', "it costs $20 or $HOME", "add me on snap, same name",
                                  '{"action":"password_reset","user_id":7}', "id,full_name,email", "please ignore.1 of the list",
                                  "the u/s scan is booked", "Mar  4 09:14:02 web01 sudo: pam_unix(sudo:session): session closed",
                                  "see 3 more st patrick's day photos"])
def test_everyday_code_patterns_leave_plain_words(text):
    detector = CodeDetector("pii_codes", DEFAULT_PATTERNS, "pii", "CODE")
    keys = ("user_is", "mention", "log_user", "name_value", "cashtag", "app_handle", "reddit_user", "sudo_user", "street_abbreviated")
    assert [text[s:e] for s, e, key in detector.find(text) if key in keys] == []


def test_code_shaped_spans_are_protected_whatever_their_label():
    rules = ProtectRules([], code_shaped=True)
    text = "sent to 69003, flat 19b, staff ST-40917, on the 2nd, paid 15,000, in 1998"
    def reason(word, label="QUANTITY"):
        start = text.index(word)
        return rules.reason(label, text, start, start + len(word))
    assert reason("69003") and reason("19b", "LOC") and reason("ST-40917", "ORG")
    assert reason("2nd") is None and reason("15,000") is None and reason("1998", "DATETIME") is None
    assert ProtectRules([]).reason("QUANTITY", text, 8, 13) is None  # off by default
    assert code_shaped("4111") and not code_shaped("1990s")
    with pytest.raises(ValueError, match="E531"):
        ProtectRules([], code_shaped="yes")


def test_a_reference_typed_as_a_date_is_code_shaped():
    """'24/HR/0931' (a recognizer typed it DATETIME) is a case reference: protected; dates with
    a month's capitals, decades and plain numeric dates are not."""
    rules = ProtectRules([], code_shaped=True)
    text = "Case 24/HR/0931, filed 12-MAR-2019 (see REF-2024-001), the mid-1960s, 12/03/2019"
    def reason(word):
        start = text.index(word)
        return rules.reason("DATETIME", text, start, start + len(word))
    assert reason("24/HR/0931") and reason("REF-2024-001")
    assert reason("12-MAR-2019") is None and reason("mid-1960s") is None and reason("12/03/2019") is None


@pytest.mark.parametrize("word, kept_masked", [
    ("10000000146", True),   # an 11-digit national id: no date is written with 9 digits in a row
    ("19b", True),           # a house number with its letter
    ("4A", True),
    ("20200101", False),     # a date written as 8 digits
    ("5d", False),           # five days
    ("3pm", False),
    ("1990s", False),
])
def test_no_date_is_shaped_like_an_id_or_a_house_number(word, kept_masked):
    """A span typed DATETIME with 9 digits in a row or a house number with its letter is no
    date (accurate's recognizer typed "10000000146" and "19b" so): code-shaped, protected."""
    text = f"Ref {word} here"
    reason = ProtectRules([], code_shaped=True).reason("DATETIME", text, 4, 4 + len(word))
    assert (reason is not None) is kept_masked


def test_a_handle_typed_as_a_group_is_one_code(default_nlp):
    """'anhtran-vn' (the recognizer typed 'anhtran' DEM): pii_refine makes the whole handle a
    CODE span, which default keeps masked; hyphenated English words stay what they were."""
    doc = default_nlp("The commit author is anhtran-vn <anh.tran@example.vn>.")
    assert ("anhtran-vn", "CODE") in [(s.text, s.label_) for s in doc.spans["pii"]]
    assert "anhtran" not in doc._.sanitized
    doc = default_nlp("She is self-employed and a part-time e-commerce consultant.")
    assert all(s.label_ != "CODE" for s in doc.spans["pii"])


def test_default_keeps_code_shaped_spans_masked(default_nlp):
    out = default_nlp("Send the cheque to 4 Wattle Street, Pymble NSW 2110. Amex 3782 822463 10005, CID 7731.")._.sanitized
    assert "2110" not in out and "3782" not in out and "7731" not in out


def test_reproduction_pipelines_say_what_to_use():
    with pytest.warns(UserWarning, match="W044.*court cases only.*'default'"):
        assert _resolve_alias("court") == "court"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _resolve_alias("default") == "default" and _resolve_alias("strict") == "strict"
    assert "{name}" in Warnings.W044


def test_refine_drops_everyday_measures_but_not_what_court_annotators_mask():
    text = "Back in 5 min, took 120 ms. A 2 cm wound, 44 hours in custody, 40 % disability. In 1961 Ms Lee. Code 123456 min."
    def at(word, label):
        start = text.index(word)
        return (start, start + len(word), label)
    spans = [at("5", "QUANTITY"), at("120", "QUANTITY"), at("2 cm", "QUANTITY"), at("44 hours", "DATETIME"), at("40", "QUANTITY"),
             at("1961", "DATETIME"), at("Ms Lee", "PERSON"), at("123456", "QUANTITY")]  # a person named: court units stay
    assert _refined(text, spans) == [("2 cm", "QUANTITY"), ("44 hours", "DATETIME"), ("40", "QUANTITY"), ("1961", "DATETIME"),
                                     ("Ms Lee", "PERSON"), ("123456", "CODE")]  # no measure: 6 digits, a code
    assert len(_refined(text, spans, drop_measures=False)) == 8


def test_log_levels_and_greetings_are_plain_words(default_nlp):
    for text in ("INFO Server started", "DEBUG loading configuration from defaults", "Hi, the plumber comes at noon."):
        assert default_nlp(text)._.sanitized == text


def test_a_name_typed_otherwise_is_protected_by_the_texts_person_spans():
    from spacy_sanitize.decide.rules import person_words

    rules = ProtectRules([], names=True)
    text = "Tom Moseley sang. Moseley toured."
    words = person_words(["Tom Moseley"])
    assert words == {"moseley"}  # "Tom" is a common word
    assert rules.reason("MISC", text, 18, 25, name_words=words)
    assert rules.reason("MISC", text, 18, 25) is None  # without the text's names
    assert ProtectRules([]).reason("MISC", text, 18, 25, name_words=words) is None  # protect_names off
    short = "Estácio de Sá founded it. Sá travelled."
    assert rules.reason("MISC", short, 26, 28, name_words=person_words(["Estácio de Sá"]))  # a two-letter surname
    nick = 'Byron Ashcombe "Whizzer" Brannon played.'
    words = person_words(["Byron Ashcombe"])
    assert rules.reason("MISC", nick, 16, 23, name_words=words)
    assert rules.reason("MISC", 'He said "Whizzer" twice.', 9, 16, name_words=words) is None
    royal = "Marie-Louise, Empress of Haiti, died."
    assert rules.reason("ORG", royal, 14, 30) and rules.reason("ORG", royal, 14, 21) is None


@pytest.mark.parametrize("text, start, end, label, kept_masked", [
    ("thanks Rose, see you at 5", 7, 11, "MISC", True),
    ("Pinned location sent by Hamish", 24, 30, "DEM", True),
    ("hi Will, the van is ready", 3, 7, "MISC", True),
    ("first name and initial  DESHAWN T   Last name  KING", 47, 51, "DEM", True),  # a form's name field
    ("the last name on the list: Paris", 27, 32, "LOC", False),
    ("NAME: G R Z E G O R Z  L E S N I A K", 23, 36, "MISC", True),  # letter-spaced block letters
    ("NAME: G R Z E G O R Z  L E S N I A K", 6, 36, "MISC", True),   # both words in one span
    ("NAME IN CAPITALS: A G N I E S Z K A   N O W A K", 20, 47, "MISC", True),
    ("NAME: G R Z E G O R Z  Lesniak", 6, 30, "MISC", False),        # not all of it spaced
    ("it's Gráinne, that's G-R-A-I-N-N-E, surname", 21, 34, "MISC", True),  # spelled out with hyphens
    ("a well-to-do family", 2, 12, "MISC", False),                  # words, not letters
    ("He moved from Rose Hill to Leeds.", 14, 23, "LOC", False),     # "from" is no address cue
    ("thanks to the Council", 14, 21, "ORG", False),                 # not right after the cue
    ("hi 2015", 3, 7, "DATETIME", False),
])
def test_a_word_after_a_greeting_or_signature_and_block_letters_stay_masked(text, start, end, label, kept_masked):
    reason = ProtectRules([], names=True).reason(label, text, start, end)
    assert (reason is not None) is kept_masked
    assert ProtectRules([]).reason(label, text, start, end) is None  # protect_names off


def test_life_dates_in_parentheses_are_protected():
    rules = ProtectRules([], date_cues=["born"])
    text = "Ann Lee (24 April 1919 – 3 May 2000) sang. On 3 May 2000 (a Monday) she died."
    first = text.index("24 April 1919")
    assert rules.reason("DATETIME", text, first, first + len("24 April 1919"))
    later = text.rindex("3 May 2000")
    assert rules.reason("DATETIME", text, later, later + len("3 May 2000")) is None
    other = "Ann Lee (1858 – 1920) wrote Blade (1998) under the rules (Article 29 § 1)."
    def reason(word):
        start = other.index(word)
        return rules.reason("DATETIME", other, start, start + len(word))
    assert reason("1858") and reason("1998") is None and reason("Article 29 § 1") is None
    lifespan = "Estácio de Sá (1520 – February 20, 1567) founded it."
    start = lifespan.index("February")
    assert rules.reason("DATETIME", lifespan, start, start + len("February 20, 1567"))


@pytest.mark.parametrize("text, names", [
    ("j. abiodun said the shift swap is fine w him", ["j. abiodun"]),       # an initial
    ("omg aoife mcgrath is coming to the party!!", ["aoife mcgrath"]),     # two name words
    ("txt from raj: running l8", ["raj"]),                                  # "txt from"
    ("seyi b. left her charger in rm 4", ["seyi b."]),                      # before "left", with an initial
    ("u know chidi? chidi eze-okoro from uni", ["chidi", "chidi eze-okoro"]),  # not "uni"
    ("can u tell ahmed al rasheed (not al-rashid lol)", ["ahmed al rasheed", "al-rashid"]),
    ("anyone got the vpn cert? check the wiki", []),                        # terms, shorthand
    ("the van driver said hi, ask reception", []),
    ("The Court applied it mutatis mutandis. Fennelly agreed.", []),        # text with capitals: the recognizer's
    ("hiya it's shirley from the surgery", ["shirley"]),                    # "it's" is two tokens
    ("did u give abdulrahman my address??", ["abdulrahman"]),               # a first object, a second after it
    ("tunde gave me ur number", ["tunde"]),
    ("went to nkechi's for dinner", ["nkechi"]),                            # someone's place
    ("Shaz: did u give abdulrahman my address", ["abdulrahman"]),           # a speaker is not counted as a capital
    ("did u give the keys back to the landlord", []),
    ("went to the cinema's bar for a drink", []),
])
def test_chat_names_finds_lower_case_names_where_chat_puts_a_person(text, names):
    from spacy_sanitize.detect.names import chat_names

    doc = spacy.blank("en")(text)
    assert [doc[a:b].text for a, b in chat_names(doc)] == names


def test_default_masks_lower_case_chat_names(default_nlp):
    out = default_nlp("lol kev said hes not coming. b. o'donoghue and c. fennelly on call tonite")._.sanitized
    assert not any(name in out for name in ("kev", "o'donoghue", "fennelly")), out
    assert "on call tonite" in out and "not coming" in out


def test_csv_fields_without_spaces_are_tokens_of_their_own(default_nlp):
    row = '1041,"Gómez, Lucía",lucia.gomez@example.es,Sevilla'
    assert [t.text for t in default_nlp.make_doc(row)][:4] == ["1041", ",", '"', "Gómez"]
    out = default_nlp(row)._.sanitized
    assert not any(part in out for part in ("Gómez", "Lucía", "lucia.gomez")), out
    assert out.startswith('1041,"') and out.count(",") == row.count(",")  # the separators stay
    assert [t.text for t in default_nlp.make_doc('He said "no", then left.')][2:6] == ['"', "no", '"', ","]


def test_json_and_log_keys_are_tokens_of_their_own(default_nlp):
    """A masked value leaves its key, its quotes and its ':' or '=' (the output stays valid JSON)."""
    import json

    record = '{"customer":{"first":"Oluwadamilare","last":"Ige","dob":"1993-02-28"},"ship":{"zip":"60614"},"ok":true}'
    assert [t.text for t in default_nlp.make_doc('{"a":"b"}')] == ["{", '"', "a", '"', ":", '"', "b", '"', "}"]
    out = default_nlp(record)._.sanitized
    assert not any(part in out for part in ("Oluwadamilare", "Ige", "1993-02-28", "60614")), out
    assert json.loads(out).keys() == json.loads(record).keys() and '"first":"' in out, out
    log = "ERROR Refund failed for cardholder='JOHNSON-OBI/ADAEZE' pan=4539 1488 0343 6467"
    out = default_nlp(log)._.sanitized
    assert "cardholder='" in out and "pan=" in out and "JOHNSON" not in out and "4539" not in out, out
    html = '<a href="/help">Help</a>'
    assert 'href="/help"' in [t.text for t in default_nlp.make_doc(html)]  # an attribute stays whole
    assert default_nlp(html)._.sanitized == html


def test_markup_tags_glued_to_text_are_tokens_of_their_own(default_nlp):
    """'Our Services</h2>' was one token: the heading was read with its tag and masked."""
    assert [t.text for t in default_nlp.make_doc("<h2>Our Services</h2>")] == ["<", "h2", ">", "Our", "Services", "</", "h2", ">"]
    for text in ("<h2>Our Services</h2>", "<label>Password</label>"):
        assert default_nlp(text)._.sanitized == text
    out = default_nlp("<td>Marchetti</td><td>1990-06-11</td><td>Ward 4</td>")._.sanitized
    assert "Marchetti" not in out and "1990-06-11" not in out and out.count("<td>") == 3, out


def test_a_listed_occupation_starting_a_sentence_is_a_plain_word(default_nlp):
    """pii_gazetteer's one-word DEM at a sentence or heading start is judged like any plain word."""
    for text in ("Executive Summary", "Firefighters brought the blaze under control early this morning."):
        assert default_nlp(text)._.sanitized == text
    assert "[" in default_nlp("The applicant, a firefighter from Izmir, was arrested.")._.sanitized


def test_numbers_in_a_text_that_names_no_one(default_nlp):
    """A sentence's first word the recognizer typed a name ("Knead", "Add 200") names no one:
    the measures of the text stay; with a person in the text they stay spans the decision judges."""
    for text in ("Knead for 10 minutes until smooth and elastic.", "Add 200 g of flour and a pinch of salt.",
                 "Running 10 mins late, start without me.", "Repeat steps 4 to 6 for the other side.",
                 "Bake for 25 to 30 minutes until golden.", "Section 3 of 5", "WARN slow query took 2300 ms"):
        assert default_nlp(text)._.sanitized == text
    # with someone in the text the number stays a span for the decision to judge (not dropped)
    doc = default_nlp("Add 200 g of flour, she said.")
    assert "200" in [s.text for s in doc.spans["pii"]]
    # a count in a range, not an age: the recognizer's age spans are left to the decision
    assert "[" in default_nlp("Patient age: 52")._.sanitized
    assert default_nlp("Marchetti, 1990-06-11, Ward 4")._.sanitized.count("[") >= 2  # the surname and the date


def test_refine_drops_product_and_platform_names_wherever_they_stand():
    text = "Join the call on Zoom or Microsoft Teams. Ask Teams. It works on Android."
    spans = [(17, 21, "PERSON"), (25, 40, "ORG"), (46, 51, "PERSON"), (65, 72, "PERSON")]
    # "Teams" alone may be a name: kept (fail closed); the others are products
    assert _refined(text, spans) == [("Teams", "PERSON")]


@pytest.mark.parametrize("text", ["Search Google for the user manual.", "Export the table to Excel and share it on Dropbox."])
def test_default_leaves_products_in_clear(default_nlp, text):
    assert default_nlp(text)._.sanitized == text


def test_refine_drops_durations_and_measures_in_a_text_that_names_no_one():
    text = "Repeat in 4 hours. Disk at 85% after a two-year wait."
    spans = [(10, 17, "DATETIME"), (27, 29, "QUANTITY"), (39, 47, "DATETIME")]
    assert _refined(text, spans) == []
    # where a person is named, court annotators mask them: they stay
    named = "Mr Kaya was held for 4 hours."
    assert _refined(named, [(0, 7, "PERSON"), (21, 28, "DATETIME")]) == [("Mr Kaya", "PERSON"), ("4 hours", "DATETIME")]
    # a year or a bare number is no measure
    assert _refined("Repeat in 2019. Room 12 hours", [(10, 14, "DATETIME")]) == [("2019", "DATETIME")]


@pytest.mark.parametrize("text, name", [("Best wishes,\nWill", "Will"), ("Thanks!\nMay", "May"), ("Cheers,\nHope", "Hope")])
def test_a_given_name_that_is_a_word_alone_after_a_sign_off_is_masked(default_nlp, text, name):
    assert name not in default_nlp(text)._.sanitized


@pytest.mark.parametrize("text, login", [
    ("Ticket by Hiroshi Takeda (htakeda). Urgent.", "htakeda"),           # initial + family name
    ("Maria Lopez asked for access; grant it to mlopez and lopezm.", "mlopez"),
    ("Maria Lopez asked for access; grant it to mlopez and lopezm.", "lopezm"),
])
def test_logins_made_from_a_detected_name_are_masked(default_nlp, text, login):
    assert login not in default_nlp(text)._.sanitized


def test_a_login_form_that_is_a_word_stays_a_word(default_nlp):
    out = default_nlp("Dr Sam Mile asked us to smile.")._.sanitized
    assert out.endswith("asked us to smile.") and "Mile" not in out


@pytest.mark.parametrize("text, name", [
    ("ill bring his kid tomek instead", "tomek"),            # no list holds it: a name after a kinship word
    ("cant come tonight, my nephew kuba has a fever", "kuba"),
    ("my son lucas is off sick", "lucas"),                    # a listed given name
])
def test_a_lower_case_name_after_a_kinship_word_is_masked(default_nlp, text, name):
    assert name not in default_nlp(text)._.sanitized


@pytest.mark.parametrize("text", [
    "my daughter babysits on fridays so cant do then",      # a rare verb after the kinship word
    "my son overthinks everything before exams",
    "her husband homeschools the twins this year",
])
def test_a_verb_after_a_kinship_word_stays(default_nlp, text):
    assert default_nlp(text)._.sanitized == text


def test_a_listed_name_typed_org_is_a_person_and_propagates(default_nlp):
    # the recognizer reads "intern is Lucía Cabrera" as an organisation; a listed given and family name is a person
    doc = default_nlp("Our new intern is Lucía Cabrera. Say hi to lucia on slack.")
    assert [(s.text, s.label_) for s in doc.spans["pii"]][:1] == [("Lucía Cabrera", "PERSON")]
    assert "lucia" not in doc._.sanitized and "Cabrera" not in doc._.sanitized
    # two listed names that are also common words stay what the recognizer said
    from spacy_sanitize.detect.refine import _listed_full_name

    nlp = spacy.blank("en")
    assert not _listed_full_name(nlp("Morgan Stanley")[0:2])
    assert _listed_full_name(nlp("Lucía Cabrera")[0:2])


@pytest.mark.parametrize("text", [
    "The engineer will arrive between 8 and 10 on Thursday.",   # times of day and a weekday
    "Your appointment is confirmed for tomorrow at 9:30.",      # a clock time the recognizer typed CODE
    "Final score: 2-1 after a late penalty.",                   # a score
    "INFO Processed 4821 records in 12 batches",                # counts, not a code or a year
    "Total hours worked this week: 37.5",
    "Please submit timesheets by Friday.",                      # a weekday the recognizer typed MISC
])
def test_times_counts_and_weekdays_in_a_text_that_names_no_one_stay(default_nlp, text):
    assert default_nlp(text)._.sanitized == text


@pytest.mark.parametrize("text, secret", [
    ("I was born on 14 March 1987 and moved here last year.", "14 March 1987"),   # a calendar date stays masked
    ("I moved to Hartlepool in 2019 after my divorce.", "2019"),                   # a year
    ("meet at my place, 19b kingfisher close, buzz twice", "19b"),                 # a house number is no count
    ("Age: 52", "52"),                                                             # an age
    ("The engineer said he would arrive between 8 and 10.", "8"),                  # "he": a text about someone
])
def test_dates_ages_and_house_numbers_stay_masked_where_no_one_is_named(default_nlp, text, secret):
    doc = default_nlp(text)
    assert any(s.start_char <= text.index(secret) < s.end_char for s in doc.spans["pii"] if s._.mask), [
        (s.text, s.label_, s._.mask) for s in doc.spans["pii"]]


@pytest.mark.parametrize("text", [
    "Key Findings",                               # "Key" is a name that is also a word; "Findings" is only a word
    "Key Risks and Mitigations",                  # plurals of everyday words
    "Marital status: Single / Married / Other",   # a form's options
    "Preferred contact method: Email / Phone / Post",
    "INFO Indexed 1532 documents",                # a verb after a log level, then a count
])
def test_headings_options_and_log_verbs_stay_plain(default_nlp, text):
    assert default_nlp(text)._.sanitized == text


@pytest.mark.parametrize("text, name", [
    ("Grace Hunter", "Grace Hunter"),             # a heading-like line of name words stays a name
    ("Siblings: Grace / Hunter / Rose", "Hunter"),  # names between slashes are no form options
    ("Parents: Ahmed / Fatima / Yusuf", "Fatima"),
])
def test_names_on_short_lines_and_between_slashes_stay_masked(default_nlp, text, name):
    assert name not in default_nlp(text)._.sanitized


@pytest.mark.parametrize("text, names", [
    ("anyone seen ola today?", ["ola"]),                       # a verb that takes a person
    ("nginx is down again on staging", []),                    # "is" follows terms as often as names
    ("my nan's coming over sunday", []),                       # a kinship word is no name
])
def test_chat_names_after_verbs_that_take_a_person(text, names):
    from spacy_sanitize.detect.names import chat_names

    doc = spacy.blank("en")(text)
    assert [doc[a:b].text for a, b in chat_names(doc)] == names


@pytest.mark.parametrize("text, name", [
    ("ok ill ask auntie shazia to drive u", "shazia"),       # kinship words as chat writes them
    ("Mum: did u get the letter from dr ahmed?", "ahmed"),    # a title in lower case
    ("Moderator: m.ferreira", "ferreira"),                    # an initial and a rare word: a login
])
def test_lower_case_titles_kin_and_logins_are_masked(default_nlp, text, name):
    assert name not in default_nlp(text)._.sanitized


@pytest.mark.parametrize("text", [
    "ask dr who about it",                                    # a common word after a lower-case title
    "ms word keeps crashing",
    "Urine culture grew e.coli, sensitive to nitrofurantoin.",  # an organism after an initial
    "swab positive for s.aureus, start flucloxacillin",
])
def test_lower_case_titles_and_initials_before_words_stay(default_nlp, text):
    assert default_nlp(text)._.sanitized == text


@pytest.mark.parametrize("text, secret", [
    ("id,full_name,email\n2232,Rhys ap Gwilym,rhys@example.cymru", "Rhys"),     # a CSV header's name column
    ('id,"Surname, Given",email\n7,"Ní Bhriain, Saoirse",s@example.ie', "Saoirse"),
    ("what3words ///hills.paper.crowd.", "hills.paper.crowd"),                  # before a full stop
    ("number is oh seven seven double one four eight two nine three six, thanks", "four eight two"),
    ("hi this is sunita calling from flat twelve", "sunita"),
    ("bullying by a boy called rory", "rory"),                                   # "called" before a lower-case name
    ("- lily m: reading well", "lily"),                                           # a given name and an initial
])
def test_everyday_document_identifiers_are_masked(default_nlp, text, secret):
    assert secret not in default_nlp(text)._.sanitized


@pytest.mark.parametrize("text", [
    "id,full_name,email,phone,postcode",          # a CSV header's field names are no handles
    "DEBUG cache warmed in 1250 ms",              # a year-shaped number before a unit is a measure
    "a file called report.pdf is attached",       # "called" before a word
    "plan b: wait for the next release",          # a word and a letter is no given name and initial
])
def test_everyday_document_words_stay(default_nlp, text):
    assert default_nlp(text)._.sanitized == text


def test_csv_name_fields_read_the_header():
    from spacy_sanitize.detect.titles import csv_column_fields

    text = 'id,full_name,file_name,email\n1,"Gómez, Lucía",a.txt,l@example.es\n2,Ann Lee,b.txt,a@example.org\n\nx,y,z\n'
    assert [(text[a:b], label) for a, b, label in csv_column_fields(text)] == [
        ("Gómez, Lucía", "PERSON"), ("l@example.es", "CODE"), ("Ann Lee", "PERSON"), ("a@example.org", "CODE")]


@pytest.mark.parametrize("text, address", [
    ("Please send it to me at 42 Ash Grove, Leeds.", "42 Ash Grove"),
    ("14 Fernbank Road, Sheffield S10 2LP", "14 Fernbank Road"),                       # a QUANTITY and a PERSON, merged
    ("Return address: Flat 9, 23 Marlowe Walk, Norwich NR2 4DS", "Flat 9, 23 Marlowe Walk"),
    # the recognizer read the house number with the street and the flat apart
    ("Thank you for your letter about the repairs at Flat 3, 27 Birch Lane, Sheffield S6 2QP.", "Flat 3, 27 Birch Lane"),
    ("New tenant at Apartment 12, 5 Kingsley Road from Monday.", "Apartment 12, 5 Kingsley Road"),
])
def test_a_house_number_goes_with_its_street(default_nlp, text, address):
    doc = default_nlp(text)
    assert any(s.text == address and s.label_ == "LOC" and s._.mask for s in doc.spans["pii"]), [
        (s.text, s.label_, s._.mask) for s in doc.spans["pii"]]


def test_a_street_word_without_a_house_number_keeps_its_type_and_addresses_are_protected():
    from spacy_sanitize.decide.rules import code_shaped

    nlp = spacy.blank("en")
    nlp.add_pipe("pii_extend")
    doc = nlp.make_doc("She starred in Melrose Place for years.")
    doc.spans["pii"] = [doc.char_span(15, 28, label="MISC")]
    assert [(s.text, s.label_) for s in nlp.get_pipe("pii_extend")(doc).spans["pii"]] == [("Melrose Place", "MISC")]
    assert code_shaped("42 Ash Grove") and code_shaped("3/14 Harbour View Road") and not code_shaped("the High Street")


def _coref_heads(text, typed, **config):
    """Run pii_coref alone on ``text`` whose spans ``typed`` ({text: label}) are preset."""
    nlp = spacy.blank("en")
    coref = nlp.add_pipe("pii_coref", config={"propagate": False, "lower_case_names": False, **config})
    doc = nlp.make_doc(text)
    doc.spans["pii"] = [doc.char_span(text.index(t), text.index(t) + len(t), label=label) for t, label in typed.items()]
    return {(s.text, s.label_, s._.risk_explain.get("detector")) for s in coref(doc).spans["pii"]}


def test_a_list_head_among_detected_names_is_a_person():
    text = "Notes\n- lily m: reading well\n- Zainab H: needs glasses\n- Will Rose: great progress"
    got = _coref_heads(text, {"lily m": "PERSON", "Zainab H": "MISC"})
    assert ("Will Rose", "PERSON", "pii_coref:list_head") in got
    assert ("Will Rose", "PERSON", "pii_coref:list_head") not in _coref_heads(text, {"lily m": "PERSON", "Zainab H": "MISC"}, list_heads=False)


@pytest.mark.parametrize("text, typed", [
    # one detected head only: no evidence that the list names people
    ("Notes\n- Amy Bell: fine\n- Grace period: 30 days\n- Rent: paid", {"Amy Bell": "PERSON"}),
    # the siblings are days and places, not names
    ("Plan\n- Monday: gym\n- Tuesday: swim\n- Rest Day: sofa", {"Monday": "DATETIME", "Tuesday": "DATETIME"}),
    ("Trips\n- France: 3\n- Spain: 2\n- Home: 5", {"France": "LOC", "Spain": "LOC"}),
    # a head of stop words and months only, or not capitalised
    ("Rota\n1. Amy Bell: on\n2. Raj Pillai: off\n3. March: tbc\n4. some more: tbc", {"Amy Bell": "PERSON", "Raj Pillai": "PERSON"}),
])
def test_a_list_head_stays_when_its_siblings_are_no_names(text, typed):
    assert {d for _, _, d in _coref_heads(text, typed)} <= {None}


def test_default_masks_the_people_of_a_standup_list(default_nlp):
    text = "Standup\n- Will: finishing the invoice export\n- Amber: on leave\n- Tomasz: fixing the login bug\n- Rose: reviewing"
    out = default_nlp(text)._.sanitized
    assert "Will" not in out and "Rose" not in out and "finishing the invoice export" in out


@pytest.mark.parametrize("text, speakers", [
    ("[14:03] anna: running late\n[14:04] tomek: ok np", ["anna", "tomek"]),
    ("[3/2/24, 14:03:11] priya: lol\n[3/2/24, 14:03:40] Dev Sharma: see you", ["priya", "Dev Sharma"]),
    # a speaker that is an ordinary word, beside one that is a name
    ("3/2/24, 14:03 - kwame: on the bus\n3/2/24, 14:05 - rose: same", ["kwame", "rose"]),
    ("09:12 <bola> looking\n09:13 <mfernandes> thx", ["bola", "mfernandes"]),
    # a log's own words are no speakers, and no name beside them makes them one
    ("14:03 backup: done\n14:05 cleanup: removed 3 files", []),
    ("[09:00] build: passed\n[09:02] deploy: started", []),
    ("[12:00] Note: the meeting moved", []),
    # a thread without times: a named speaker, a speaker twice; then a repeated rare word is one too
    ("tom: are we still on?\nana: yes! 7pm\ntom: great\nana: see you", ["tom", "ana", "tom", "ana"]),
    ("Mum: home for dinner?\nkai: yeah back by 6\nMum: ok love you\nkai: love u too", ["kai", "kai"]),
    # a capitalised speaker that is no plain word speaks once ("Jo"); "Agent" and "Customer" are roles
    ("Marek: heating is off again\nJo: same here\nMarek: emailed them", ["Marek", "Jo", "Marek"]),
    ("Agent: hello\nSarah: my order is late\nAgent: sorry about that\nCustomer: ok", ["Sarah"]),
    # a group chat's speaker with a house or flat number: a neighbour, whatever the word
    ("Pat (no. 22): lost power?\nDev: yes since 6\nPat (no. 22): thanks love", ["Pat", "Dev", "Pat"]),
    # a form's, a mail header's and an interview's labels are no speakers
    ("Name: MILLER, Grace\nDOB: 07.01.1979\nTel: 0161 496 0388\nAddress: 22 Heaton Mews", []),
    ("From: a@example.com\nTo: b@example.com\nSubject: hi\n\nFrom: b@example.com\nTo: a@example.com", []),
    ("Interviewer: how long?\nParticipant: two years\nInterviewer: and before?", []),
    ("DOB: 1979\nTel: 0161\nDOB: 1980\nTel: 0162", []),
    ("priya: invoice?\njonas: sent", []),  # two turns: too few to call it a thread
])
def test_chat_speakers(text, speakers):
    from spacy_sanitize.detect.names import chat_speakers
    assert [text[a:b] for a, b in chat_speakers(text)] == speakers


def test_a_speaker_the_recognizer_typed_otherwise_is_a_person(default_nlp):
    """pii_coref's speaker span replaces a recognizer's span of the same words and another
    type ("Raj:" read as MISC, which the decision kept), so the speaker stays masked."""
    doc = default_nlp("Group chat - Elm Close\nSue (no. 14): bins go out tonight?\nRaj: yes, recycling week\nSue (no. 14): ta")
    speakers = [s for s in doc.spans["pii"] if s.text in ("Sue", "Raj")]
    assert len(speakers) == 3 and all(s.label_ == "PERSON" and s._.mask for s in speakers)


def test_default_masks_the_given_names_of_a_thread_without_times(default_nlp):
    out = default_nlp("tom: are we still on for tonight?\nana: yes! 7pm\ntom: great, lucy is coming too\nana: perfect")._.sanitized
    assert not {"tom", "ana", "lucy"} & set(out.replace(":", " ").replace(",", " ").split())
    assert "are we still on for tonight?" in out and "is coming too" in out


@pytest.mark.parametrize("text, name", [("can u send me kasia's address for the party? x", "kasia"),
                                        ("whats zofia's new number?", "zofia")])
def test_a_lower_case_name_before_what_a_person_has_is_masked(default_nlp, text, name):
    assert name not in default_nlp(text)._.sanitized


@pytest.mark.parametrize("text", ["going to my nan's house later", "the bbq's at our place"])
def test_a_noun_after_a_determiner_before_s_stays(default_nlp, text):
    assert default_nlp(text)._.sanitized == text


def test_a_lower_case_given_name_outside_a_chat_is_left_to_the_other_rules():
    import spacy

    from spacy_sanitize.detect.names import chat_given_names
    doc = spacy.blank("en")("great, lucy is coming too")
    assert [doc[i].text for i in chat_given_names(doc)] == ["lucy"]  # the caller asks only in a chat log


@pytest.mark.parametrize("text, kept, gone", [
    ("ask dr khan if the results are back", "ask dr", "khan"),
    ("pls tell mr shah his car is ready", "pls tell mr", "shah"),
])
def test_a_lower_case_surname_after_a_title_is_masked(default_nlp, text, kept, gone):
    out = default_nlp(text)._.sanitized
    assert kept in out and gone not in out


@pytest.mark.parametrize("text", ["book a dr appointment for tuesday", "mr right is out there", "i miss you so much",
                                  "she called nhs direct", "ms excel keeps crashing when i open the budget file"])
def test_a_word_of_general_use_after_a_title_stays(default_nlp, text):
    assert default_nlp(text)._.sanitized == text


def test_default_masks_a_chat_logs_speakers(default_nlp):
    out = default_nlp("[14:03] anna: running late, see you at 3\n[14:04] tomek: ok np")._.sanitized
    assert "anna" not in out and "tomek" not in out and "running late, see you at 3" in out


def test_a_named_patients_drug_is_a_health_fact_and_the_patient_stays_masked(default_nlp):
    doc = default_nlp("Patient: Aoife Byrne\nAmoxicillin 500 mg three times daily for 7 days.")
    spans = {s.text: s.label_ for s in doc.spans["pii"]}
    assert spans.get("Amoxicillin") == "MISC" and "Amoxicillin 500" not in spans
    assert "Aoife" not in doc._.sanitized and "Byrne" not in doc._.sanitized


def test_refine_splits_a_drug_and_its_dose():
    nlp = spacy.blank("en")
    refine = nlp.add_pipe("pii_refine")
    doc = nlp.make_doc("Mr Okonkwo takes Amoxicillin 500 mg daily.")
    doc.spans["pii"] = [doc.char_span(3, 10, label="PERSON"), doc.char_span(17, 32, label="PERSON")]
    got = [(s.text, s.label_) for s in refine(doc).spans["pii"]]
    assert got == [("Okonkwo", "PERSON"), ("Amoxicillin", "MISC"), ("500 mg", "QUANTITY")]


@pytest.mark.parametrize("token", ["500mg", "250mcg", "10ml", "5000mAh", "120ms"])
def test_a_number_glued_to_its_unit_is_no_id(token):
    from spacy_sanitize.detect.codes import NOT_IDS
    assert NOT_IDS.match(token)


@pytest.mark.parametrize("text, span", [
    ("She is allergic to penicillin, he is not.", "allergic to penicillin"),
    ("allergic to tree nuts and eggs", "allergic to tree nuts"),
    ("He has a severe peanut allergy.", "peanut allergy"),
    ("He is allergic to the cat.", "allergic"),  # "the": no allergen word
    ("Allergies: none known", "Allergies"),      # nothing before it
])
def test_an_allergy_span_takes_its_allergen(text, span):
    import spacy

    from spacy_sanitize.detect.refine import allergy_bounds

    doc = spacy.blank("en")(text)
    word = next(t for t in doc if t.lower_.startswith("allerg"))
    start, end = allergy_bounds(doc, word.i, word.i + 1, frozenset())
    assert doc[start:end].text == span
    # tokens of another span are not taken
    assert allergy_bounds(doc, word.i, word.i + 1, frozenset(range(len(doc))) - {word.i}) == (word.i, word.i + 1)


def test_default_masks_a_named_or_coded_patients_health_facts(default_nlp):
    """Health facts (the gazetteer's health terms, with the allergen) stay masked where a person
    is named or a code identifies one; a text about no one keeps them (plain_sentences.jsonl)."""
    cases = {
        "Mrs Alison Hart is pregnant and allergic to penicillin; she has epilepsy.": ["pregnant", "penicillin", "epilepsy"],
        "I saw Ben Cole today; he has a severe peanut allergy and schizophrenia.": ["peanut", "schizophrenia"],
        "Card 4111-1111-1111-1111, CVV 123. Patient is pregnant, allergic to penicillin.": ["pregnant", "penicillin"],
    }
    for text, facts in cases.items():
        out = default_nlp(text)._.sanitized
        assert not [f for f in facts if f in out], out
    for text in ("Asthma is common in children and usually well controlled.", "Allergic reactions to penicillin can be severe."):
        assert default_nlp(text)._.sanitized == text


def test_a_position_in_degrees_wins_over_a_recognizers_date(default_nlp):
    """The recognizer reads part of a degree-minute-second pair as a date; the code rule's match
    is validated by its form, so it stays whole and masked whatever the decision."""
    out = default_nlp("Meet point: 40°26'46\"N 79°58'56\"W, behind his garage")._.sanitized
    assert "26'46" not in out and "79°58" not in out and "behind his garage" in out


@pytest.mark.parametrize("text, names", [
    ("HR note: Markus 'Mark' Young, staff no. 004512, raised a grievance.", ["Young"]),   # a surname after a nickname
    ("Residents on the unit: Mrs Edna Fairbairn (94) and Mr Ravi Chandrasekaran.", ["94"]),  # an age after a name
    ("Recipient: Ms Roisin McGrory, 12 Glenbawn Park, Dublin. Signed by: ROSE", ["ROSE"]),   # the next field's label ends a value
    ("Support chat\nCustomer: rose-marie o'brien\nAgent: thanks", ["rose-marie o'brien"]),   # a field's value in lower case
    ("Delivery: leave by the bin. Cust: priyanka v. 9876543210.", ["priyanka"]),
    ("Thanks for your patience,\nHope\nCustomer Support", ["Hope"]),     # a sign-off with words after it
    ("Ticket holder: STONE / GRACE   Order 8812", ["STONE / GRACE"]),       # a surname and its given name
    ("commit 3f9e2a1\nAuthor: Seo-yeon Park <sypark@example.kr>", ["Seo-yeon Park"]),
])
def test_red_team_names_are_found(default_nlp, text, names):
    """Cases of a red-team probe (benchmarks/everyday/leak_cases.jsonl), each masked by default."""
    doc = default_nlp(text)
    found = [s.text for s in doc.spans["pii"]]
    assert all(name in found for name in names), found
    assert not any(name in doc._.sanitized for name in names), doc._.sanitized


@pytest.mark.parametrize("text", ["Signed by: the duty manager", "Customer: unable to log in after the update",
                                  "Tom Barker (1999) wrote the first version.", "The nurse said 'Fine' Yesterday."])
def test_red_team_rules_leave_plain_values(default_nlp, text):
    doc = default_nlp(text)
    assert not [s for s in doc.spans["pii"] if s._.risk_explain.get("detector", "").endswith((":field", ":age", ":nickname"))], \
        [(s.text, s._.risk_explain) for s in doc.spans["pii"]]


@pytest.mark.parametrize("text, names", [
    ("hey its bill here lol, bill okafor from the 5 aside", ["bill", "bill okafor"]),  # a word the corpora capitalise, then a name word
    ("name as rohit kumar sharma", ["rohit kumar sharma"]),                         # a lead word between two name words
    ("siema, to ja ola, moj nr to 512", ["ola"]),                                    # Polish "it's me"
    ("hey! i'm Rose 😊 not on here much, add me on insta or whatsapp", ["Rose"]),   # a capital where a writer names themself
    ("pls call back tmrw, the bill is paid", []),                                    # "bill" alone and no name word: a bill
    ("hunter young txted, said bill's dropping the kids at grace's", ["hunter young", "bill", "grace"]),  # someone doing, someone's place
    ("the bill's coming tmrw lol", []),                                              # after a determiner: a thing's
    ("a new cycle lane will be built", []),                                          # a name that is a stop word: a verb
    ("she's in room 2.14 w kayode", ["kayode"]),                                     # "w": with
    ("i'm Sure it will work", []),                                                   # an everyday word capitalised
])
def test_chat_names_with_words_that_are_names(text, names):
    from spacy_sanitize.detect.names import chat_names

    doc = spacy.blank("en")(text)
    assert [doc[a:b].text for a, b in chat_names(doc)] == names


FOURTH_PROBE = [
    ("INTERVIEWER: Spell it?\nWITNESS: It's Darren Kirkpatrick, K-I-R-K-P-A-T-R-I-C-K.", "K-I-R-K"),  # spelled out
    ("> Can you send the minutes?\nSure, attached.\n-- \nPat", "Pat"),                                 # a mail's signature delimiter
    ("Re: Tenancy of Flat 12, Marlowe House, 40 Queen's Road, Reading RG1 4AR", "40 Queen's Road"),
    ("CNIC holder Muhammad Bilal Qureshi, House 14, Street 7, G-9/2, Islamabad", "Street 7"),
    ("Date of birth: 2 9 / 0 3 / 1 9 7 1   PPS No: 8 7 6 5 4 3 2 W", "6 5 4"),                           # boxed digits
    ("Surname: ___O'DONOGHUE___  Forename(s): ___Mary Kate___", "Mary Kate"),                           # "(s)" after a field's label
    ("ur parcel is at mine. text me before u come x\n- Rose Whitfield", "Rose"),                        # a name that is a word opens it
    ("NAME              ACCOUNT\nHOPE ABIOLA       7741029385", "HOPE"),
]


@pytest.mark.parametrize("text", [
    "Bill me for the extra hours when you send the invoice.",   # a verb before its object
    "Can you call me back?",
    "INTERVIEWER: Can you state your name for the tape?",        # a turn after a speaker's label
])
def test_a_verb_opening_a_sentence_is_no_name(default_nlp, text):
    assert default_nlp(text)._.sanitized == text


@pytest.mark.parametrize("text, name", [
    ("Frank the plumber called about the boiler.", "Frank"),     # "the": an apposition, kept masked
    ("WITNESS: Yvonne Clarke", "Yvonne"),
])
def test_names_before_the_or_addressed_stay_masked(default_nlp, text, name):
    assert name not in default_nlp(text)._.sanitized


FIFTH_PROBE = [
    ("Pt presented w/ partner Will. Safety plan agreed.", "Will"),                       # a kinship word, a name that is a word
    ("Congratulations to Dawn and Gary Pettigrew on their ruby wedding!", "Dawn"),         # joined to a person
    ("Dear Will,\nYour membership lapsed on 31 March.", "Will"),                           # the greeting inside the recognizer's span
    ("Perp: Lee Bright (ex-partner), DOB 5/5/1991, car black Audi", "5/5/1991"),            # a numeric date typed otherwise
    ("she'll need your DOB - 14 Feb 1950 - and your postcode.", "14 Feb 1950"),           # a birth date after its cue
    ("hi my name is precious okoro i live at flat 9b", "precious"),                        # a word-name before a name word
    ("[19:02] Aunty Bisi: has anyone heard from tunde?? his phone off since morning\n[19:04] Kemi: he's at the "
     "general, ward c. bed near window\n[19:05] Aunty Bisi: send me the address i will go", "tunde"),
    ("school report child (ruby-mae, yr1) came in with a bruise", "ruby-mae"),             # a kinship word, a parenthesis
    ("address 4 hawthorn way, leigh wn7 1ff", "hawthorn way"),
    ("Table 5: work lot - Kirsty, Big Mike, Precious & her bf Jerome", "Precious"),       # a partner after "& her bf"
]


@pytest.mark.parametrize("text", [
    "Joy and laughter filled the hall.",                                   # "and" and an everyday word
    "Young carers can get a free bus pass from the council offices.",      # a plural noun and its verb
    "Faith groups are invited to the community cohesion forum next month.",
])
def test_a_word_modifying_a_noun_at_a_sentence_start_is_no_name(default_nlp, text):
    assert default_nlp(text)._.sanitized == text


def test_a_name_at_a_sentence_start_before_a_verb_stays_masked(default_nlp):
    assert "Grace" not in default_nlp("Grace walks to school with her brother.")._.sanitized
    assert "Faith" not in default_nlp("Faith and her brother Bill arrived late to the hearing.")._.sanitized
    assert "Dorothy" not in default_nlp("Congratulations to Ralph and Dorothy Brenda, known as Brenda.")._.sanitized


SIXTH_PROBE = [
    ("1. The claimant, who was 52 at the date of dismissal, worked as a supervisor for Mr Tom Hale.", "52"),  # after "was"
    ("1. The father is Mr Dean Coulter. He is 44. He lives with his mother.", "44"),
    ("The Child and Family Agency v. M.O'D. and P.O'D.\n1. The mother, Ms Aoife Dunne, attends.", "P.O'D."),  # initials for a party
    ("R v. K.L.M. The appellant struck the complainant, A.B.-C., a student, with his car.", "A.B.-C."),
    ("The children are Blessing (7) and Marvellous Okafor (5). They live with their mother.", "Blessing"),  # a sibling with an age
]


def test_copula_ages_and_initials_are_protected_by_the_decision():
    from spacy_sanitize.decide.rules import AGE, INITIALS, NOT_INITIALS

    assert [m.group("k") for m in AGE.finditer("He is 44. She was 15 at the time; the fee was 15.5 pounds")] == ["44", "15"]
    assert INITIALS.fullmatch("K.L.M.") and INITIALS.fullmatch("P.O'D.") and "U.S." in NOT_INITIALS


def test_a_greeting_read_with_its_name_stays_outside_the_mask(default_nlp):
    """pii_refine trims a greeting off the front of a recognizer's span ("Dear Will" typed MISC):
    the name is masked, the greeting stays."""
    out = default_nlp("From: membership@rowingclub.org.uk\nDear Will,\nYour membership lapsed on 31 March.")._.sanitized
    assert "\nDear [" in out and "Will" not in out


SEVENTH_PROBE = [
    ('On Friday a man I know as "Tank" came in.', "Tank"),                      # an alias in quotes after its cue
    ('Def: SMITH, John-Paul (a.k.a. "JP", "Smithy")   DOB 03.03.1998', '"JP"'),
    ('IN THE MATTER OF THE CHILD BABY "PEARL"\n1. Pearl was born at home.', "Pearl"),  # after a kinship word
    ("We announce the death of Margaret 'Peggy' O'Sullivan (née Brennan).", "Margaret"),  # given 'nick' family
    ("CROWN COURT – Court 7\nR v Amari JOY-WILLIAMS and Dean PRICE   T20248003   Trial", "PRICE"),  # a court list
    ("Before District Judge Harrison\nH00LV123  Hughes v Brown  Small claim", "Hughes"),
    ("Class: ___2G___   Tel: ___07733 451 980___", "07733"),                     # a form's blanks
    ("Mob 0412 558 903. Tayla's Centrelink CRN 204 339 817A.", "817A"),          # digits in threes and a check letter
    ("To: Rebecca Lindqvist <becks.l@icloud.com>\n\nno problem", "becks"),       # an address in a longer NER span
    ("Found on the train: a lanyard, badge no 20931.", "20931"),                 # "no" without its period
    ("Hi Precious,\nWelcome to the gym!", "Precious"),                           # a greeted name that is a word
    ("owner:\n  name: Oğuzhan Demir\non_call_backup: kdemir", "kdemir"),         # an initial and a person's family name
    ("ok so Rocky n Sunny r coming at 7, tell ivy to bring the speaker", "ivy"),  # chat with capitalised names
    ("hi miss, aaliyah wont be in today. thanks, shaz (aaliyah's mum)", "shaz"),  # a chat's sign-off and comma
    ("no problem, i'll take yusuf and ella on wed. see you at the gate", "ella"),  # two name words joined by "and"
    ("Next review with HR (ask kerry in payroll re deductions).", "kerry"),      # prose: a listed name after "ask"
    ("Panel: me, dave o., and Chioma Eze.", "dave"),                             # a given name and an initial
    ("CLAIMANT'S NAME (BLOCK CAPITALS) : OGUNLEYE-BAKARE, BLESSING\nNINO: JT 45 67 89 A", "BLESSING"),
    ("[00:03:19] Sunita: great, and Hope's off next week so ping me instead", "Hope"),  # a word name mid-sentence
    ("Lost keys! if found ring Hamish 0131 496 0055.", "Hamish"),               # after a contact cue
    ("ok final numbers: raj owes £42.50, meg owes £61, and tolu owes me £18.", "tolu"),
]


@pytest.mark.parametrize("text", [
    "Will you send it before lunch?",      # a modal before its subject
    "May I ask a question?",
    "Hi all,\nthe meeting moved to 3.",    # greetings that address no one by name
    "Dear Customer,\nyour parcel is on its way.",
    "Hi Mum, home soon",
    "The case no longer applies.",         # "no" before no number
])
def test_seventh_probe_plain_sentences_stay_plain(default_nlp, text):
    assert default_nlp(text)._.sanitized == text


def test_a_rules_span_keeps_its_detector_when_the_recognizer_agrees(default_nlp):
    """pii_ner finds "JP" too: the span keeps pii_titles' name (the rule is why it is there), so
    pii_refine trusts it as a rule's span instead of dropping two capitals as a plain word."""
    doc = default_nlp('Def: SMITH, John-Paul (a.k.a. "JP", "Smithy")')
    detectors = {s.text: s._.risk_explain["detector"] for s in doc.spans["pii"]}
    assert detectors["JP"] == "pii_titles:alias" and detectors["SMITH"] == "pii_ner"


def test_greeted_names_and_word_names_inside_a_sentence():
    from spacy_sanitize.decide.rules import mid_sentence_word_name
    from spacy_sanitize.detect.names import greeted_name

    assert greeted_name("Precious") and greeted_name("Will") and greeted_name("Okonkwo")
    assert not any(greeted_name(w) for w in ("all", "Team", "Customer", "Parents", "Mum", "there"))
    text = "Hope is here, and Hope's off next week. Grace periods apply."
    assert mid_sentence_word_name(text, 18, 22)          # inside a sentence
    assert not mid_sentence_word_name(text, 0, 4)        # a sentence's first word
    assert not mid_sentence_word_name(text, 40, 45)      # after a period
    assert not mid_sentence_word_name("the HOPE fund", 4, 8)


EIGHTH_PROBE = [
    ("omg Rhiannon's new number is 0447 555 902, save it. dont give it to Declan pls", "Declan"),  # after "give it to"
    ("The account holder is Mr Hendrik Pretorius, Plot 17, Kameeldrift.", "Plot 17"),  # a plot by its number
    ("so its just me n Sunday at the braai tonight. Sunday's bringing the wors", "Sunday"),  # named with "me"; retyped
]

NINTH_PROBE = [
    ("His postal address is 12 Te Awa Road, RD 3, Ōpōtiki 3198.", "RD 3"),  # a rural delivery route
    ("Pt: Lowri Gwatkin-Jenkins  D0B: 3O/O7/1988  NHS N0: 72l 450 3318", "72l 450 3318"),  # OCR's letters for digits
    ("Pt: Lowri Gwatkin-Jenkins  D0B: 3O/O7/1988  NHS N0: 72l 450 3318", "O7/1988"),
    ("bed 12 - hope (pt) settled overnight, obs stable.", "hope"),  # a role in parentheses after the name
    ("Present: Rose (line manager), Miles Mugisha-Kent (employee).", "Rose"),
    ("you can reach me at kojo dot owusu-ansah at outlook dot com", "owusu-ansah"),  # spelled-out dots in the local part
    ("[quote=tiggerbounce]my son Reggie was in the same class[/quote]", "tiggerbounce"),  # a forum quote's author
    ("caller: my name's Ngaire, that's N G A I R E, surname Tautahi-Pomare", "N G A I R E"),  # the name spelled out
    ("Summer's last day is Friday. Please don't mention it to Chase, it's a surprise!", "Chase"),  # "mention it to"
]

TENTH_PROBE = [
    ("[18:02] Somto: guys who has chinaza's charger\n[18:03] ebuka_o: check kenechi's bag", "chinaza"),  # a name word's possessive
    ("babe can u grab thenmozhi from tuition at 6, she'll be outside the library w her friend yazhini", "thenmozhi"),  # "grab"
    ("babe can u grab thenmozhi from tuition at 6, she'll be outside the library w her friend yazhini", "yazhini"),  # a friend
    ("ok so idil jimale from maths said abdiweli is in hospital", "abdiweli"),  # "said"
    ("Jan 19 22:41:07 nas01 smbd[1882]: connect to service Photos initially as user nokuthula (uid=1004) from 192.168.1.57", "nokuthula"),
    ("id,first,last,mobile\n17,olumide,adeleye,08031187722", "08031187722"),  # a CSV's contact column
    ("Employee,Shift,Rate\nmohamud a.,night,12.50\nilhan w.,day,11.80", "ilhan w."),  # the people of a rota
    ("Vic rego 1HX 7PQ, owner Tamati Horomona, towed from outside his flat in Footscray", "1HX 7PQ"),  # a labelled plate
    ("CUSTOMER: yeah it's, er, nine four, four one, two two, zero eight, and the surname's Vaipulu, V-A-I-P-U-L-U", "four one, two two"),
    ("CUSTOMER: yeah it's, er, nine four, four one, two two, zero eight, and the surname's Vaipulu, V-A-I-P-U-L-U", "V-A-I-P-U-L-U"),
    ("voicemail: hiya it's Treasa about the car insurance, policy is A-Q-seven-seven-one-four-four, ta", "A-Q-seven"),
    ("Hi all, pls welcome Dr Shashank Iyengar (shanky) to the team - shanky's desk is next to Meenal's.", "shanky"),  # a nickname
    ("Salaam aabo, Hamdi's passport number is P04418227, born 02/02/2012. -Abdifatah", "Abdifatah"),  # a glued dash
    ("swiggy: call customer on arrival - ask for vaidehi didi (not the watchman), 3rd floor, h.no 7-1-212/B, ameerpet", "7-1-212/B"),
    ("swiggy: call customer on arrival - ask for vaidehi didi (not the watchman), 3rd floor, h.no 7-1-212/B, ameerpet", "vaidehi"),
    ("snap me: xhosa.queen.sindi 👑 (sindisiwe mgqibelo) tiktok same", "xhosa.queen.sindi"),
    ("my linkedin is linkedin.com/in/senthil-murugan-4b21a9 and gh is smurugan-dev", "smurugan-dev"),
]


def test_tenth_probe_rules_leave_other_words(default_nlp):
    from spacy_sanitize.detect.titles import csv_column_fields

    text = "rank,team,points,website\n1,Leinster,42,leinsterrugby.ie\n"
    assert csv_column_fields(text) == []  # no name column: the header names no one
    for plain in ("The plate 4 is cracked.", "login as user (uid=0) failed", "lol the cat knocked my coffee over again ☕😩",
                  "Leave it in the office for collection.", "Call it one, two, three: the show starts.",
                  "Pick one, two, three, four or five."):
        assert default_nlp(plain)._.sanitized == plain


def test_ninth_probe_rules_leave_other_words(default_nlp):
    from spacy_sanitize.detect.text_view import _ocr_digits

    # a word of digits with fewer O/l/I than digits reads as digits; words and codes do not
    assert _ocr_digits("D0B: 3O/O7/1988 and 72l") == {6: "0", 8: "0", 22: "1"}
    assert _ocr_digits("Oil, lol, IO, Il and 2OO") == {}
    for plain in ("The meeting (chair) was long.", "The Manager (employee) left early.", "Minutes (note taker) attached.",
                  "We will mention it to the board soon.", "The R&D budget, RD 2, was cut."):
        assert default_nlp(plain)._.sanitized == plain


def test_me_and_a_relative_names_no_one_and_a_month_stays_a_date(default_nlp):
    assert default_nlp("Mum and me went to the shops.")._.sanitized == "Mum and me went to the shops."
    doc = default_nlp("Dr April Jones was born in April 1950.")
    assert [s.label_ for s in doc.spans["pii"] if s.text.startswith("April 1950")] == ["DATETIME"]


# The stack refit on this round's detections kept these spans; strict masked them (leak cases
# 612, 945, 1059, 1255): rules of the decision now keep them masked.
REFIT_KEPT = [
    ("[21:14, 03/05/2024] Shaz: did u give abdulrahman my address?? 7 hollybush lane ws10 8jp", "hollybush"),  # street before a postcode
    ("> Can someone cover Princess's shift Sat? She's off sick", "Princess"),   # an owner of a shift
    ("He was then 22 and worked as a lifeguard at Hinckley Leisure Centre. Aaron Brightwell appealed.", "22"),  # "was then" and an age
    ("My name is Gift Sithole, I am 24 years old and live at 55 Ninth Ave, Alexandra, 2090.", "2090"),  # a home address's code
    # the refit after the ninth and tenth probes kept these where strict masks them (leak cases 660, 1060, 1149)
    ("właściciel Krzysztof Dąbrowski, zam. ul. Lipowa 7/3, 15-427 Białystok.", "15-427"),  # a Polish postcode and its town
    ("Re: Grievance of Marie-Claude Thibodeau (Grievance No. 2021-0457)", "2021-0457"),  # a grievance's number
    ("Speaker 2: Twelve Beech Road, L, S, six, four, Q, Z.", "six, four"),  # a postcode spelled out
]


def test_owner_and_home_code_rules_leave_other_words():
    from spacy_sanitize.decide.rules import HOME_BEFORE, HOME_CODE, owner_of

    text = "Cover Princess's shift. Leeds's future is bright. In 2090, they said."
    assert owner_of(text, 6, 14) and not owner_of(text, 24, 29)  # a future is nothing a person has
    assert HOME_CODE.fullmatch("2090") and not HOME_BEFORE.search("In 2090, they said, ")


@pytest.mark.parametrize("text, secret", FOURTH_PROBE + FIFTH_PROBE + SIXTH_PROBE + SEVENTH_PROBE + EIGHTH_PROBE + NINTH_PROBE + TENTH_PROBE + REFIT_KEPT)
def test_red_team_probe_identifiers_are_masked(default_nlp, text, secret):
    """The identifiers of the red-team probes' texts that their fixes reach (each probe written
    before its fixes: benchmarks/everyday/leak_cases.jsonl) stay masked."""
    assert secret not in default_nlp(text)._.sanitized


@pytest.mark.parametrize("text, kept", [
    ("Faith communities met on Sunday to plan the winter food drive.", True),  # a plural noun, then a past tense
    ("Grace looks tired today.", False),                                        # a name, its verb, an adjective
    ("Grace walks to school.", False),
])
def test_a_word_before_a_plural_noun_and_a_past_tense_is_no_name(default_nlp, text, kept):
    assert (default_nlp(text)._.sanitized == text) is kept


@pytest.mark.parametrize("text, secret, kept", [
    ("CVS pharmacy #4471\nJOHNSON, LATOYA R\nLISINOPRIL 10MG TAB  QTY 30", "LATOYA", False),  # a label's name line
    ("ITEMS\nPARIS, FRANCE\nLONDON, ENGLAND", "PARIS", True),                                   # places, not a family name first
    ("no problem, i'll take yusuf and ella on wed.\nSent from Outlook", "yusuf", False),         # two listed names joined
    ("Serve the lamb with rice and peas.", "rice", True),
])
def test_name_lines_in_capitals_and_joined_lower_case_names(default_nlp, text, secret, kept):
    assert (secret in default_nlp(text)._.sanitized) is kept
