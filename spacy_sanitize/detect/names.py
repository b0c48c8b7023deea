"""Person names that the NER misses for want of capitals: the shipped name lists and the
lower-case name finder.

``data/names/given.txt`` and ``family.txt`` (built by scripts/build_name_lists.py) hold
given names and family names that are not also ordinary words: a name is left out when
its lower-case form is common in running text ("will", "mark", "rose", "young"). In chat
and notes names are often typed in lower case ("john smith called, and later jane doe
arrived."), where a cased NER sees common nouns. A lower-case given name followed by a
family name, another given name or a rare word (not a stop word, below the common-word
frequency) is read as a person name; a word alone is not (a first name alone in lower case
is too often something else).
"""
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import FrozenSet, List, Optional, Set, Tuple

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc

from ..doc_reads import token_texts
from ..text import COMMON_WORDS, NameLists, is_common_word, name_lists, read_words, zipf  # noqa: F401 (NameLists, name_lists: re-exported)
from ..shipped import data_path



@lru_cache(maxsize=16)
def _word_list(file_name: str, folder: Optional[str]) -> FrozenSet[str]:
    """A word list of ``folder`` (None: the shipped ``data/names``), read once."""
    return read_words((Path(folder) if folder else data_path("names")) / file_name)


def word_names(folder: Optional[str] = None) -> FrozenSet[str]:
    """The lower-cased names left out of the lists because they are also ordinary words
    ("grace", "will", "baker"): such a word may still be a name."""
    return _word_list("word_names.txt", folder)


def plain_words(folder: Optional[str] = None) -> FrozenSet[str]:
    """Lower-cased words written in lower case in at least 60% of their (3 or more)
    occurrences in the unlabeled biographies and judgments: ordinary words, not names."""
    return _word_list("plain_words.txt", folder)


# ordinary words of everyday text the biographies and judgments rarely hold: greetings, log levels
EVERYDAY_WORDS = frozenset({"hi", "hello", "hey", "info", "debug", "warn", "warning", "error", "trace", "fatal", "critical", "notice"})


def dictionary_words(folder: Optional[str] = None) -> FrozenSet[str]:
    """Everyday English words that a spell-checker's lists write only in lower case and no
    name list holds ("whisk", "preheat", "allergies"; built by scripts/build_dictionary_words.py):
    words of recipes, logs and care notes the biographies and judgments rarely hold."""
    return _word_list("dictionary_words.txt", folder)


def ordinary_word(word: str) -> bool:
    """A word of general use, not a name's: a stop word, month, weekday or title, a word of
    ``plain_words`` or of ``EVERYDAY_WORDS`` (case-insensitive)."""
    lowered = word.lower()
    return lowered in COMMON_WORDS or lowered in plain_words() or lowered in EVERYDAY_WORDS


def everyday_word(word: str) -> bool:
    """An ordinary word (``ordinary_word``) or one of ``dictionary_words``: what pii_refine may
    drop at a sentence start; the lower-case name finder keeps the narrower test."""
    return ordinary_word(word) or word.lower() in dictionary_words()


def _lower_word(text: str) -> bool:
    return text.isalpha() and text.islower()


def _name_word(word: str, lists: NameLists) -> bool:
    """A word that may follow a given name in a lower-case name."""
    if word in lists.family or word in lists.given:
        return True
    return len(word) >= 2 and not is_common_word(word)


def lower_case_names(doc: Doc, lists: Optional[NameLists] = None) -> List[Tuple[int, int]]:
    """Token ranges of lower-case person names ("john smith", "jane doe"): a given name of
    the lists followed by one or two name words."""
    lists = lists or name_lists()
    found: List[Tuple[int, int]] = []
    i = 0
    while i < len(doc) - 1:
        first, second = doc[i], doc[i + 1]
        ok = (
            first.whitespace_ and _lower_word(first.text) and _lower_word(second.text)
            and first.text in lists.given and _name_word(second.text, lists)
        )
        if not ok:
            i += 1
            continue
        end = i + 2
        # a third part only from the lists ("mary ann jones"): a rare word there is often not a name
        if end < len(doc) and doc[end - 1].whitespace_ and _lower_word(doc[end].text) and doc[end].text in lists.family:
            end += 1
        found.append((i, end))
        i = end
    return found


# Apps, platforms and devices everyone uses: names of products, not of anyone ("on Zoom or
# Microsoft Teams", "works on Android"); pii_refine drops a span of these only wherever it stands,
# and pii_titles reads none after a title ("ms excel")
PRODUCT_NAMES = frozenset(
    "instagram facebook twitter whatsapp slack zoom teams skype youtube google linkedin tiktok snapchat telegram "
    "gmail outlook hotmail iphone ipad android windows excel powerpoint dropbox github gitlab wikipedia netflix "
    "spotify microsoft chrome firefox safari bluetooth wifi wi-fi drive docs sheets".split()
)
# words that may stand in a product's name but not alone ("Google Drive", "Microsoft Teams")
PRODUCT_ONLY_WITH = frozenset({"drive", "docs", "sheets", "teams"})

# Chat and SMS shorthand, rare in print but no name ("txt from raj", "brb", "thx")
CHAT_WORDS = frozenset(
    "txt msg msgs brb thx tnx ty pls plz tmrw tmr tonite idk btw ur urs ya lol lmao rofl omg imo imho "
    "fyi asap rn tbh smh ngl nvm jk afaik irl dm dms bc cuz coz gr8 l8 l8r m8 w8 thnx k kk ok okay pm am "
    "eta tbc tbd wfh ooo hr hrs min mins sec secs vpn wifi url api pdf usb ssh cpu gpu".split()
)
# Words around a person in chat: "ask lily", "tell priyanka", "txt from raj", "its ngoc from",
# "u know chidi"; "kev said", "seyi left"
CHAT_BEFORE = frozenset("ask tell ping call thanks thx ty cheers hi hey hiya its it's know with w cc seen saw met meet asked told pinged "
                        "messaged texted emailed grab collect fetch welcome said".split())
# the two words before a writer's own name: "this is sunita", "irl name's huynh tuan", Polish "to ja ola" ("it's
# me, ola"), and before someone asked for ("ask for vaidehi")
TWO_WORD_CUES = frozenset({("this", "is"), ("to", "ja"), ("name", "is"), ("name", "as"), ("name", "'s"), ("name", "’s"), ("ask", "for")})
# where a writer names themself, after which a capitalised word in a lower-case text is a name
# ("hey! i'm Rose", "its Frank here"): a lower-case text capitalises little else
SELF_CUES = frozenset("i'm im its it's".split())
# "txt from raj", "msg from raj": "from" alone is followed by places ("from uni")
CHAT_FROM = frozenset("txt text msg message call email mail heard".split())
_INITIAL = re.compile(r"[a-z]\.")
# what chat says a person has ("kasia's address"), and the words before a noun that is no name ("my nan's")
POSSESSIONS = frozenset("address addy number no phone mobile email house flat place home birthday bday party wedding "
                        "car mum dad mom brother sister husband wife boyfriend girlfriend bf gf kids son daughter".split())
DETERMINERS = frozenset("my your his her our their the a an this that ur".split())
# particles of Arabic, Dutch and German names ("al rasheed", "van dijk", "bin salem")
NAME_PARTICLES = frozenset("al el bin ibn abu van von".split())
CHAT_AFTER = frozenset("said says wrote replied posted asked told wants left called rang texted messaged emailed "
                       "gave sent brought will cant can't isnt isn't owes paid".split())  # not "is" or "'s": "nginx is down", "my nan's coming"
# the cues before a given name that prose with capitals types in lower case ("ask kerry in payroll")
PROSE_CUES = frozenset("ask tell ping cc thank thanks".split())
# a chat's sign-offs before a comma and the writer's name ("thanks, shaz")
SIGN_OFF_CUES = frozenset("thanks thx ty cheers love ta regards xx".split())
# verbs whose first object is a person when a second follows ("did u give abdulrahman my address")
GIVING = frozenset("give gave send sent show showed lend lent pass passed tell told".split())
# before someone's place ("went to nkechi's", "staying at kasia's")
PLACE_BEFORE = frozenset("to at round from".split())
# the words that point at a person after them: never the first word of that person's name
CUE_WORDS = CHAT_BEFORE | CHAT_FROM | GIVING | CHAT_AFTER | PLACE_BEFORE | {word for cue in TWO_WORD_CUES for word in cue}


# a lower-case word this frequent in general English is a word or a term ("vpn", "wifi"), not a
# name, unless a list holds it: "raj" 3.6, "kev" 3.3, "mcgrath" 3.3
CHAT_NAME_ZIPF = 3.6


def _chat_name_word(word: str, lists: NameLists) -> bool:
    """A lower-case word that is a listed name or that no English list holds (not common, not
    an everyday or dictionary word, not chat shorthand): a name in chat ("abiodun", "seyi")."""
    if not (len(word) >= 3 and word.islower() and word.replace("'", "").replace("-", "").isalpha()):
        return False
    if word.startswith(("o'", "o’")) and len(word) >= 5 and word[2:].isalpha():
        return True  # an Irish surname ("o'brien", "o'neill"): no English word is written so
    if "-" in word:  # a double name: a part listed ("rose-marie") or every part rare ("eze-okoro")
        parts = [p for p in word.split("-") if p]
        return any(p in lists.given or p in lists.family for p in parts) or all(_rare_word(p) for p in parts)
    return word in lists.given or word in lists.family or _rare_word(word)


def lead_word(word: str) -> bool:
    """A lower-case word that may open a name before a name word: one the corpora write
    capitalised as often as not and no everyday list holds ("bill", "frank", "kumar"; not
    "call", "told"), so "bill okafor" and "rohit kumar sharma" are names where "call sharma" is not."""
    return len(word) >= 3 and word.isalpha() and word.islower() and word not in CHAT_WORDS and not everyday_word(word)


def may_be_given_name(word: str, lists: Optional[NameLists] = None) -> bool:
    """Whether a lower-cased word may be someone's given name where the layout says a person
    stands: a listed name, a name that is also a word ("hope", "will") or a lead word ("dawn",
    "rose"); pii_coref's coordinated names and pii_propn's name openers."""
    lists = lists or name_lists()
    return word in lists.given or word in lists.family or word in word_names() or lead_word(word)


# a relative's or a carer's word, before their given name ("her daughter Emily", "my son lucas";
# pii_titles' kinship words, pii_coref's "and her ..."); no one's name after a greeting ("Hi Mum")
DEFAULT_KINSHIP: List[str] = [
    "daughter", "son", "child", "kid", "baby", "sister", "brother", "mother", "father", "mom", "mum",
    "dad", "wife", "husband", "spouse", "partner", "fiancé", "fiancée", "fiance", "fiancee",
    "boyfriend", "girlfriend", "grandson", "granddaughter", "grandchild", "grandmother",
    "grandfather", "grandma", "grandpa", "niece", "nephew", "cousin", "aunt", "uncle", "stepson",
    "stepdaughter", "stepmother", "stepfather", "twin", "widow", "widower",
    # as chat and notes write them
    "auntie", "aunty", "nan", "nana", "nanna", "gran", "granny", "grandad", "granddad", "stepdad", "stepmum", "stepmom",
    "hubby", "bf", "gf", "mama", "papa", "mummy", "daddy", "boy", "girl",
    # the people around someone that care and case notes name
    "neighbour", "neighbor", "carer", "sibling",
    # and friends ("w her friend yazhini", "my flatmate Ola")
    "friend", "bestie", "flatmate", "housemate", "roommate", "classmate",
]
# the one-word greetings a message opens with (pii_titles' greeted names, pii_refine's trimming)
GREETING_WORDS = frozenset({"dear", "hi", "hello", "hey", "hiya"})
# whom a greeting addresses when it names no one ("Hi all,", "Dear Customer,", "Hey babe"), beside
# the kinship words ("Hi Mum")
ADDRESSEES = frozenset(
    "all everyone everybody team there world guys folks friends friend both you sir madam sirs colleague colleagues customer "
    "customers member members resident residents neighbours neighbors parent parents carers applicant "
    "candidate patient student students tenant tenants client clients reader readers diary santa editor manager doctor nurse "
    "teacher coach officer love babe sweetie darling honey hun mate buddy pal bro sis lads ladies gentlemen boys girls "
    "kids class people community user users subscriber subscribers supporter supporters volunteer volunteers partners "
    "valued hiring recruiter admin support".split()
) | frozenset(DEFAULT_KINSHIP)


def greeted_name(word: str, lists: Optional[NameLists] = None) -> bool:
    """Whether the capitalised word a message's greeting addresses is a name ("Hi Precious,",
    "Dear Will"): any word but a group, a role, a relative or an endearment (``ADDRESSEES``) and
    the plural of a common word ("Dear Parents,")."""
    lists = lists or name_lists()
    word = word.lower()
    if word in lists.given or word in lists.family or word in word_names():
        return True
    return word.isalpha() and word not in ADDRESSEES and not (word.endswith("s") and is_common_word(word[:-1]))


def kin_name_word(word: str, lists: Optional[NameLists] = None) -> bool:
    """A lower-case word after a kinship word that is a name ("his kid tomek", "my son lucas"):
    a listed given name, or a chat name word (``_chat_name_word``) not inflected like the verb
    such a phrase often goes on with ("my daughter babysits", "my son overthinks")."""
    lists = lists or name_lists()
    if word in lists.given:
        return True
    return _chat_name_word(word, lists) and not word.endswith(("s", "ed", "ing"))


@lru_cache(maxsize=65536)
def _rare_word(word: str) -> bool:
    """No chat shorthand, name that is a word, everyday or frequent English word (one lookup a word)."""
    if word in CHAT_WORDS or word in word_names() or everyday_word(word):
        return False
    return zipf(word) < CHAT_NAME_ZIPF


def _hyphenated(texts: List[str], spaced: List[bool], end: int) -> int:
    """The end of a name word with its hyphenated parts ("eze-okoro")."""
    while end + 1 < len(texts) and texts[end] == "-" and not spaced[end - 1] and texts[end + 1].isalpha():
        end += 2
    return end


def _few_capitals(texts: List[str], counted: List[int]) -> bool:
    """At most one of the ``counted`` words in ten starts with a capital."""
    return bool(counted) and sum(texts[i][:1].isupper() for i in counted) * 10 <= len(counted)


def _lower_case_openings(texts: List[str], spaces: List[str], detected: FrozenSet[int]) -> bool:
    """Whether most sentences and lines open with a lower-case word (chat: "ok so Rocky n Sunny r
    coming. tell ivy ..."; prose capitalises them whatever its names), the words of ``detected``
    spans not counted."""
    opening, lower, total = True, 0, 0
    for i, (word, space) in enumerate(zip(texts, spaces)):
        if word.isalpha() and opening:
            if i not in detected:
                total += 1
                lower += word[:1].islower()
            opening = False
        if word in (".", "!", "?") or "\n" in word or "\n" in space:
            opening = True
    return total > 0 and lower * 2 > total


def _prose_names(texts: List[str], lists: NameLists) -> List[Tuple[int, int]]:
    """In text with capitals, the given names typed in lower case where only a person stands: a
    listed one after a cue that asks for a person ("Next review with HR (ask kerry in payroll)") and
    two listed ones joined by "and" ("i'll take yusuf and ella on wed"; not a rare word opening a
    sentence, "priyanka will take minutes": "nginx will restart" reads the same)."""

    def listed(word: str) -> bool:
        return word.isalpha() and word.islower() and word in lists.given and word not in word_names() and word not in CHAT_WORDS and not everyday_word(word)

    found = []
    for i, word in enumerate(texts):
        if not word.islower() or not word.isalpha():
            continue
        before, after = (texts[i - 1].lower() if i else ""), (texts[i + 1].lower() if i + 1 < len(texts) else "")
        if before in PROSE_CUES and listed(word):
            found.append((i, i + 1))
        elif after == "and" and i + 2 < len(texts) and listed(word) and listed(texts[i + 2]):
            found += [(i, i + 1), (i + 2, i + 3)]
    return found


def chat_names(doc: Doc, lists: Optional[NameLists] = None, detected: FrozenSet[int] = frozenset()) -> List[Tuple[int, int]]:
    """Token ranges of person names in a lower-case text (chat, SMS: at most one capitalised
    word in ten; or so without the words of spans already ``detected``, the token indices of the
    names and places a chat capitalises, where most sentences open in lower case: "ok so Rocky n
    Sunny r coming at 7, tell ivy..."): a name word (``_chat_name_word``) after an initial ("j. abiodun") or before
    another ("aoife mcgrath", "chidi eze-okoro"), or a name word alone where chat puts a person
    (after "ask", "tell", "txt from", "hey its"; before "said", "left"). Text with capitals is
    left to the recognizer: there a lower-case rare word is a term, not a name. A word before a
    colon (a speaker, a label: "Shaz: did u give abdulrahman...") is not counted. In text with
    capitals, only where a person stands (``_prose_names``: "ask kerry", "yusuf and ella")."""
    lists = lists or name_lists()
    texts, spaces = token_texts(doc)
    counted = [i for i, w in enumerate(texts) if w.isalpha() and (i + 1 == len(texts) or texts[i + 1] != ":")]
    if not counted or not (_few_capitals(texts, counted) or (_few_capitals(texts, [i for i in counted if i not in detected])
                                                            and _lower_case_openings(texts, spaces, detected))):
        return _prose_names(texts, lists)
    spaced = [bool(space) for space in spaces]
    lower = [w.lower() for w in texts]
    size = len(texts)
    found: List[Tuple[int, int]] = []
    leads: Set[str] = set()
    i = 0
    while i < size:
        if lower[i] in NAME_PARTICLES and i + 1 < size:  # "al rasheed", "al-rashid": a particle and a name word
            j = i + 2 if texts[i + 1] == "-" and not spaced[i] else i + 1
            if j < size and _chat_name_word(texts[j], lists):
                found.append((i, _hyphenated(texts, spaced, j + 1)))
                i = found[-1][1]
                continue
        before = lower[i - 1] if i else ""
        name_word = _chat_name_word(texts[i], lists)
        # "its Frank here", "i'm Rose": a capital where a writer names themself
        introduced = (texts[i][:1].isupper() and texts[i][1:].islower() and (before in SELF_CUES or (before in ("'m", "’m", "'s", "’s") and i >= 2 and lower[i - 2] in ("i", "it")))
                      and (_chat_name_word(lower[i], lists) or lead_word(lower[i])))
        after_word = lower[i + 1] if i + 1 < size else ""
        # a lead word as someone's place or doing something ("at grace's", "bill's dropping the kids")
        owner = (after_word in ("'s", "’s") and before not in DETERMINERS
                 and (before in PLACE_BEFORE or (i + 2 < size and lower[i + 2].endswith("ing") and len(lower[i + 2]) > 4)))
        # a word the corpora capitalise before a name word opens the name ("bill okafor", "frank doyle"):
        # not a cue of its own, nor before a given name that opens the name ("ping emily dickinson")
        lead = (not name_word and lead_word(texts[i]) and i + 1 < size and lower[i] not in CUE_WORDS
                and not (after_word in lists.given and after_word not in lists.family)
                and ((spaced[i] and (_chat_name_word(texts[i + 1], lists) or (after_word in word_names() and after_word not in STOP_WORDS))) or owner))
        if not (name_word or lead or introduced):
            i += 1
            continue
        end = _hyphenated(texts, spaced, i + 1)
        if end + 1 < size and lower[end] in NAME_PARTICLES and _chat_name_word(texts[end + 1], lists):
            end = _hyphenated(texts, spaced, end + 2)  # "ahmed al rasheed"
        # the next name word, or a lead word and a name word ("rohit kumar sharma")
        pair = (lead and not owner) or (end < size and spaced[end - 1] and _chat_name_word(texts[end], lists))
        if not pair and end + 1 < size and spaced[end - 1] and spaced[end] and lead_word(texts[end]) and _chat_name_word(texts[end + 1], lists):
            end += 1
            pair = True
        if pair:
            end = _hyphenated(texts, spaced, end + 1)
        if lead:
            leads.add(lower[i])
        # "txt from raj", "hi this is sunita"
        two_word_cue = i >= 2 and ((before == "from" and lower[i - 2] in CHAT_FROM) or (lower[i - 2], before) in TWO_WORD_CUES)
        start = i - 1 if i and _INITIAL.fullmatch(texts[i - 1]) else i  # "j. abiodun"
        if i >= 3 and (lower[i - 3], lower[i - 2]) in TWO_WORD_CUES and texts[i - 1].isalpha() and texts[i - 1].islower() and spaced[i - 1]:
            start = i - 1  # a given name that is a word before the name word: "my name is precious okoro"
        if end < size and _INITIAL.fullmatch(texts[end]):
            end += 1  # "seyi b. left"
        after = lower[end] if end < size else ""
        # "kasia's address", "zofia's new number": what a person has, after no determiner ("my nan's house");
        # a name word's anything ("who has chinaza's charger", "confirming mícheál's check-up")
        possessive = (after in ("'s", "’s") and before not in DETERMINERS
                      and (name_word or any(w in POSSESSIONS for w in lower[end + 1 : end + 3])))
        # "it's shirley from the surgery": "it's" is two tokens
        its = before in ("'s", "’s") and i >= 2 and lower[i - 2] == "it"
        given = before in GIVING and after in DETERMINERS  # "give X my address"
        # a chat's sign-off, its comma, the writer's name word ("thanks, shaz (aaliyah's mum)")
        signed = name_word and before == "," and i >= 2 and lower[i - 2] in SIGN_OFF_CUES
        # two name words joined by "and" ("i'll take yusuf and ella"): the second is a name as surely
        joined = (name_word and end + 1 < size and lower[end] in ("and", "&", "n") and _chat_name_word(texts[end + 1], lists)
                  and lower[end + 1] not in CUE_WORDS)
        place = after in ("'s", "’s") and before in PLACE_BEFORE  # "went to X's"
        if pair or introduced or (lead and owner) or start < i or before in CHAT_BEFORE or two_word_cue or after in CHAT_AFTER or possessive or its or given or place or signed:
            found.append((start, end))
        elif joined:
            found += [(start, end), (end + 1, _hyphenated(texts, spaced, end + 2))]
            end = found[-1][1]
        i = end
    if leads:  # the lead word alone where chat puts a person ("its bill here lol, bill okafor ...")
        taken = {k for start, end in found for k in range(start, end)}
        for k in range(1, size):
            cue = lower[k - 1] in CHAT_BEFORE or (lower[k - 1] in ("'s", "’s") and k >= 2 and lower[k - 2] == "it")
            if lower[k] in leads and k not in taken and cue:
                found.append((k, k + 1))
        found.sort()
    return found


# a chat log's line: a time (in brackets, or after a date), then the speaker before a colon or
# in angle brackets ("[14:03] anna: late", "[3/2/24, 14:03:11] Dev Sharma: ok",
# "3/2/24, 14:03 - kwame: on the bus", "09:12 <bola> looking")
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]?[aApP][mM])?"
CHAT_LINE = re.compile(
    r"(?m)^(?:\[[^\]\n]{0,24}?" + _CLOCK + r"\]|\(" + _CLOCK + r"\)|(?:\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4},?[ \t])?" + _CLOCK + r")"
    r"[ \t]{1,3}(?:[-–][ \t]{1,3})?"
    r"(?:<([^\W\d_][\w.'’-]{0,30})>|([^\W\d_][\w.'’-]{0,30}(?:[ \t][^\W\d_][\w.'’-]{0,30}){0,2}):(?=[ \t]|$))"
)
# what a log writes where a chat writes its speaker
SYSTEM_SPEAKERS = frozenset("system server bot admin root note notice you me status update alert build deploy backup cron "
                            "kernel daemon service app client host job task test ci".split())


# a turn of a chat or SMS thread written without times ("tom: are we still on?"): one or two
# words at a line's start before a colon and a space, maybe with a short note in parentheses
# between (a group chat's "Sue (no. 14): bins tonight?")
CHAT_TURN = re.compile(r"(?m)^[ \t]{0,3}([^\W\d_][\w.'’-]{1,30}(?:[ \t][^\W\d_][\w.'’-]{0,30})?)(?:[ \t]{1,2}\(([^()\n]{1,24})\))?:(?=[ \t])")
# a form's field labels that are no common English word ("DOB:", "Tel:"): never a speaker
FIELD_LABELS = frozenset("dob tel mob fax ref refs nhs ssn nin attn dept cc bcc fwd re ps nb".split())


def _log_word(words: List[str]) -> bool:
    """Whether a speaker's (lower-case) words hold a log's or chat's own word ("backup", "info", "brb")."""
    return any(w in SYSTEM_SPEAKERS or w in EVERYDAY_WORDS or w in CHAT_WORDS for w in words)


def _named(words: List[str], lists: NameLists) -> bool:
    """Whether a speaker's (lower-case) words hold a name: a listed one, a name that is a word, a rare word."""
    return any(w in lists.given or w in lists.family or w in word_names() or _rare_word(w.strip(".'’-")) for w in words)


def _turn_speakers(text: str, lists: NameLists) -> List[Tuple[int, int]]:
    """Speakers of a thread without times: at least three turns, two speakers, one of them
    speaking twice and one a name (``chat_speakers``' test) so a form's or a mail header's
    labels ("Name:", "DOB:", "From:") are none; then a speaker is a person when it is a name,
    when it speaks twice without being a common word ("ana"; not "Mum"), when it is written
    capitalised and is no plain word ("Jo", "Sue"; not "Agent", "Customer": ``plain_words``), or
    when its note in parentheses holds a number (a neighbour's house or flat: "Pat (no. 22):")."""
    turns = []
    for match in CHAT_TURN.finditer(text):
        words = match.group(1).lower().split()
        if not _log_word(words) and not any(w in FIELD_LABELS for w in words):
            resident = any(c.isdigit() for c in match.group(2) or "")
            turns.append((match.span(1), " ".join(words), match.group(1)[:1].isupper(), resident))
    counts = Counter(turn[1] for turn in turns)
    # a speaker with a house or flat number names a neighbour as surely as a listed name does
    named = {s for s in counts if _named(s.split(), lists)} | {turn[1] for turn in turns if turn[3]}
    if len(turns) < 3 or len(counts) < 2 or max(counts.values(), default=0) < 2 or not named:
        return []
    plain = plain_words()
    return [span for span, s, capitalised, resident in turns
            if s in named or resident
            or (counts[s] >= 2 and not any(is_common_word(w) or everyday_word(w) for w in s.split()))
            or (capitalised and not any(w in plain or everyday_word(w) for w in s.split()))]


def chat_given_names(doc: Doc, lists: Optional[NameLists] = None) -> List[int]:
    """In a chat log (its speakers found), the lower-case words of the given-name lists ("great,
    lucy is coming too"): chat drops capitals, and the lists hold no ordinary word."""
    lists = lists or name_lists()
    return [t.i for t in doc if len(t.text) >= 3 and t.text.isalpha() and t.text.islower() and t.text in lists.given and t.text not in CHAT_WORDS]


def chat_speakers(text: str, lists: Optional[NameLists] = None) -> List[Tuple[int, int]]:
    """Character ranges of the speakers of a chat log (``CHAT_LINE``): a speaker is a person when
    it is a listed name, a name-shaped rare word or a login ("anna", "Dev Sharma",
    "mfernandes"), or, in a log with such a speaker, any speaker but a log's own words ("rose"
    beside "kwame"; not "backup", "deploy", "kernel")."""
    if ":" not in text and "<" not in text:
        return []
    lists = lists or name_lists()
    speakers = []
    for match in CHAT_LINE.finditer(text):
        group = 1 if match.group(1) is not None else 2
        words = match.group(group).lower().split()
        if not _log_word(words):
            speakers.append((match.span(group), _named(words, lists)))
    if not speakers:  # no timed line: a thread written without times
        return _turn_speakers(text, lists)
    if not any(named for _, named in speakers):
        return []
    return [span for span, named in speakers if named or len(speakers) >= 2]


def login_forms(given: str, family: str) -> FrozenSet[str]:
    """The logins an organisation makes from a name ("Hiroshi Takeda": htakeda, takedah,
    hiroshitakeda, hiroshi.takeda, hiroshi_takeda, h.takeda), lower case, five characters or
    more and no English word ("Sam Mile" gives no "smile")."""
    g, f = given.lower(), family.lower()
    forms = {g[0] + f, f + g[0], g + f, f"{g}.{f}", f"{g}_{f}", f"{g[0]}.{f}"}
    return frozenset(x for x in forms if len(x) >= 5 and not is_common_word(x) and not everyday_word(x))


# the second word of the organisms notes write after an initial ("e.coli", "s.aureus"): no login
SPECIES = frozenset(
    "coli aureus epidermidis pneumoniae pyogenes agalactiae faecalis faecium difficile albicans influenzae typhi jejuni "
    "pylori monocytogenes aeruginosa tuberculosis gonorrhoeae meningitidis marcescens cloacae mirabilis vulgaris "
    "sapiens elegans cerevisiae".split()
)
# a login or handle made of a name: "fatima.zahra", or an initial and a family name "k.yamamoto"
_NAME_HANDLE = re.compile(r"([a-z]{1,32})[._]([a-z]{2,32})")


def name_handles(doc: Doc, lists: Optional[NameLists] = None) -> List[int]:
    """Indices of tokens that are a login written from a person's name in running text
    ("grant access to fatima.zahra", "k.yamamoto"): a given name of the lists and a name word
    (``_name_word``: of the lists, or rare in English), or an initial and a family name (of the
    lists, or a chat name word: "m.ferreira"; not an organism: "e.coli"), joined by a dot or an
    underscore."""
    lists = lists or name_lists()
    found = []
    for i, text in enumerate(token_texts(doc)[0]):
        match = _NAME_HANDLE.fullmatch(text)
        if match is None:
            continue
        first, second = match.groups()
        initial_and_name = len(first) == 1 and (second in lists.family or (_chat_name_word(second, lists) and second not in SPECIES))
        if (first in lists.given and _name_word(second, lists)) or initial_and_name:
            found.append(i)
    return found
