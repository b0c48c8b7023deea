"""pii_titles: person names introduced by a title or honorific ("Mr Per Aasen", "Dr. Nilsen")
or by the label of a form field ("Name: Mateus", "Print name: GIDEON ASANTE").

Generic NER models miss names whose first word is also a common word ("Mr Per Aasen": "Per"
reads as a preposition). A title followed by one to four capitalised words on its line, up
to the end of the sentence, marks those words as a PERSON span; the title itself stays in clear text (it is not identifying, and TAB's
recall does not count mr/mrs/ms).

A field label of ``fields`` ("First name", "Applicant", "Account holder") before ":" or "="
marks the name words after it on its line (capitalised or all-caps words, initials, particles,
one "Surname, Given" comma; a value with a digit is no name): forms and captions write names
where NER sees no sentence.

Two more kinds of words introduce names the same way:

- **name-variant cues** ("née", "married name:", "maiden name", "born", "also known as"):
  the capitalised words after them (two at least after "born": not "born Catholic") are
  another name of the person ("Judi Ann Genovesi
  (married name: Adler 1984 to 2012; Whaling 2014 to present; ...)": inside parentheses,
  each later item of the list that starts with capitalised words is one too);
- **kinship words** ("daughter", "son", "wife", "nephew"...): a child's or relative's given
  name after them is often alone ("Her daughter Emily (age 7)"); it is also taken in lower
  case when it is in the shipped given-name list ("my son lucas", ``detect/names.py``) or a
  word no English list holds ("his kid tomek"; not "my son overthinks": ``kin_name_word``).

A match whose first word is a stop word, month or weekday ("born In", "son March") is
skipped, and leading titles are left out ("her husband Prince Philip": "Philip").

Names also stand where the layout of a message, a caption or a table puts them:

- **header fields** of e-mail (``headers``: "From", "To", "Cc", "Bcc" and their German,
  French, Spanish, Dutch forms), only at the start of a line (after quote marks ">"): "To:
  Hale, Simone; Sato, Keiko": each recipient is a name ("Surname, Given" or "Given Surname");
  "subject to: approval" is no header;
- **greetings** ("Hi", "Dear", "Good morning"... at the start of a line) before a name and a
  comma, "!", ":" or the line's end: any capitalised word but a group, a role
  or a relative ("Hi Precious,"; "Hi all,", "Dear Customer,", "Hi Mum" name no one);
- **sign-offs** (``sign_offs``: "Best,", "Regards,", "Thanks,", "Cheers,"... at the end of a
  line, or "--"/"—" before the end of a line): the capitalised words that follow them on
  their line or alone on the next line are the writer's name ("Cheers,\nTomasz", "-- Ingo");
- **captions**: the line above a party's role alone on its line ("Claimant", "(Defendant)",
  "Respondent") names that party: a company when it ends with a company suffix
  ("LIMITED", "LTD", "PLC", "GMBH", "S.A."; label ORG), a person otherwise; company names
  written in capitals with such a suffix are ORG anywhere ("BRAXTON MEDICAL GMBH");
- **address fields** (``address_fields``: "Address", "Street", "Anschrift"... at the start of
  a line): the value to the end of the line is a place (LOC), when it has a digit or two
  words;
- **table cells** (HTML ``<td>``, Markdown ``| ... |`` rows below the header): a cell that
  holds only one to three capitalised words, none a common word ("Patel", "Harriet"), is a
  name; header cells are not; in a CSV block the fields of a name column its header names
  ("id,full_name,email": ``csv_column_fields``) are names.

Chat and notes drop capitals: a lower-case title or "called"/"named" before a name word ("dr
ahmed", "a boy called rory"; ``kin_name_word``), chat's kinship words ("auntie shazia") and a
listed given name with an initial before a mark or the line's end ("lily m:") are names too.
"""
import re
from typing import List, Optional, Tuple

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.language import Language
from spacy.tokens import Doc

from ..doc_reads import doc_text
from ..extensions import register_extensions
from ..text import COMMON_WORDS, csv_fields, csv_header, is_common_word
from ..spans import add_char_spans, check_label
from ..types import PERSON_TITLES
from ._regex import alternatives
from .names import DEFAULT_KINSHIP, GREETING_WORDS, PRODUCT_NAMES, everyday_word, greeted_name, kin_name_word, may_be_given_name, name_lists, ordinary_word, word_names

DEFAULT_TITLES: List[str] = ["Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Prof", "Professor", "Sir", "Dame", "Lady", "Lord", "Judge", "Justice", "Madam", "Monsieur", "Madame", "Herr", "Frau"]
# A period ends a name word only after an initial ("J. R. Smith"): after a longer word it
# ends the sentence, and the next sentence is not part of the name ("Mr Per Aasen. Ticket").
DEFAULT_FIELDS: List[str] = [
    "Name", "First name", "Last name", "Surname", "Family name", "Given name", "Given names", "Forename",
    "Forenames", "Full name", "Print name", "Printed name", "Patient", "Patient name", "Applicant", "Respondent",
    "Claimant", "Defendant", "Plaintiff", "Appellant", "Petitioner", "Tenant", "Tenants", "Tenant(s)", "Landlord",
    "Account holder", "Policy holder", "Policyholder", "Cardholder", "Student", "Employee", "Witness",
    "Emergency contact", "Next of kin", "NOK", "Attn", "Guardian", "Parent", "Mother", "Father", "Spouse",
    "Reviewer", "Signed", "Signed by", "Received by", "Collected by", "Signatory", "Customer", "Cust", "Recipient", "Consignee", "Addressee", "Client", "Passenger", "Contact person", "Beneficiary",
    "Author", "Committer", "Ticket holder",
]
# a word of a name in a field value: a capitalised or all-caps word (any script's case), an
# initial, a particle; "&" and "and" join the names of one field ("Rashida & Kwame Boateng"), "/" a
# surname and its given names ("STONE / GRACE")
FIELD_NAME_WORD = re.compile(r"^(?:[^\W\d_][\w'’.-]*|&|/|and|van|von|de|der|den|da|di|du|le|la|bin|ibn|al|ó|o')$")
NAME_WORD = r"(?:[A-Z]\.|[A-Z][\w'’-]*|(?:van|von|de|der|den|da|di|du|le|la|bin|ibn|al)(?=[ \t]+[A-Z]))"
NAME_RUN = rf"(?:{NAME_WORD})(?:[ \t]+(?:{NAME_WORD})){{0,3}}"
# NAME_RUN with bounded words and gaps, for the patterns that may start at any word (a scan of a
# long run of name characters stays linear)
SHORT_WORD = r"(?:[A-Z]\.|[A-Z][\w'’-]{0,40}|(?:van|von|de|der|den|da|di|du|le|la|bin|ibn|al)(?=[ \t]{1,3}[A-Z]))"
SHORT_RUN = rf"(?:{SHORT_WORD})(?:[ \t]{{1,3}}(?:{SHORT_WORD})){{0,3}}"
# a party's words on one side of a case's "v": one space apart (a court list's columns are wider)
SIDE_RUN = rf"(?:{SHORT_WORD})(?:[ \t](?:{SHORT_WORD})){{0,3}}"
DEFAULT_VARIANT_CUES: List[str] = [
    "née", "nee", "born", "married name", "maiden name", "birth name", "stage name", "pen name",
    "real name", "also known as", "a.k.a.", "aka", "nicknamed",
]
# words before a quoted alias only: without quotes "known as" names places and songs too
QUOTED_CUES: List[str] = ["known as", "know as", "know him as", "know her as", "know them as", "goes by", "went by", "alias"]
# the words that stand for the Crown or a public prosecutor in a case's name ("R v Levi FOX")
CROWN = frozenset({"r", "regina", "rex", "crown", "dpp", "state", "people"})
# words of a party that is a body, not a person ("Lloyds Bank plc", "Leeds City Council")
PARTY_BODIES = frozenset(
    "bank plc ltd limited llp llc inc council borough county city district trust authority secretary state home department "
    "ministry commissioner commissioners police chief constable insurance services group company association university "
    "hospital nhs board office society club union school college church government revenue customs agency".split()
)
# the vocabulary of a court list or a judgment: a text without it writes "v" between teams and bands
COURT_WORDS = re.compile(r"(?i)\b(?:court|judge|tribunal|claim|claimant|hearing|trial|case|sentenc\w*|magistrates?|justice|defendant|appeal)\b")
# the greetings a message opens with, before the name of the one it is for
GREETINGS: List[str] = [*sorted(GREETING_WORDS), "morning", "good morning", "good afternoon", "good evening"]
# a title in lower case, as chat and notes write it, and the words that introduce a name,
# before a lower-case name ("dr ahmed", "a boy called rory")
LOWER_CASE_TITLES = ("dr", "mr", "mrs", "ms", "miss", "prof", "called", "named")
# the titles a surname follows whatever its frequency (not "miss you", "called mum")
PERSONAL_TITLES_LOWER = frozenset({"dr", "mr", "mrs", "ms", "prof"})
# a CSV header's column of names ("full_name", "Surname", "customer name"; not "file_name", "username")
NAME_COLUMN = re.compile(r"(?i)(?:(?:full|first|last|given|family|middle|maiden|sur|fore|customer|patient|client|contact|employee|"
                         r"member|account[ _]?holder|person|applicant|tenant|student|pupil)[ _-]?)?(?:name|names|surname|forename)s?"
                         # a header's bare "first" and "last", or the people a rota or a register lists ("Employee,Shift,Rate")
                         r"|(?i:first|last|given|employee|staff|patient|client|customer|member|tenant|student|pupil|person|attendee)")
# a CSV header's column of phone numbers or e-mail addresses ("mobile", "tel", "email_address"): each value a CODE
CONTACT_COLUMN = re.compile(r"(?i)(?:mobile|cell|cellphone|phone|telephone|tel|whatsapp|e-?mail)(?:[ _-]?(?:no|number|address))?")


def csv_column_fields(text: str) -> List[Tuple[int, int, str]]:
    """The values of the name columns of CSV blocks, with "PERSON": a header line of 3 or more
    plain field names, one of them a name column ("id,full_name,email"), then the lines with as
    many fields. A recognizer reads a row without spaces as one run ("2232,Rhys ap Gwilym,..."):
    the header says which field is a person. Beside a name column, the values of its contact
    columns (``CONTACT_COLUMN``: "id,first,last,mobile") with "CODE"."""
    found: List[Tuple[int, int, str]] = []
    columns: List[Tuple[int, str]] = []
    width = 0
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        fields = csv_fields(body, offset) if "," in body else None
        if fields is not None and csv_header(text, fields):
            heads = [text[a:b].strip() for a, b in fields]
            names = [k for k, head in enumerate(heads) if NAME_COLUMN.fullmatch(head)]
            contacts = [k for k, head in enumerate(heads) if CONTACT_COLUMN.fullmatch(head)]
            columns = [(k, "PERSON") for k in names] + [(k, "CODE") for k in contacts] if names else []
            width = len(fields) if names else 0
        elif columns and fields is not None and len(fields) == width:
            for k, label in columns:
                a, b = fields[k]
                while a < b and text[a].isspace():
                    a += 1
                while b > a and text[b - 1].isspace():
                    b -= 1
                if any(c.isalpha() for c in text[a:b]) or (label == "CODE" and sum(c.isdigit() for c in text[a:b]) >= 6):
                    found.append((a, b, label))
        else:
            columns, width = [], 0
        offset += len(line)
    return found


# fields whose value is an address (LOC): the value up to the end of its line
DEFAULT_ADDRESS_FIELDS: List[str] = [
    "Address", "Home address", "Postal address", "Street address", "Address line 1", "Address line 2",
    "Address line 3", "Street", "Adresse", "Anschrift", "Straße", "Adres", "Dirección", "Indirizzo", "Endereço",
]
# e-mail header fields (matched at the start of a line only: "subject to:" is no header)
DEFAULT_HEADERS: List[str] = ["From", "To", "Cc", "Bcc", "Reply-To", "Von", "An", "De", "À", "A", "Para", "Van", "Aan", "Från", "Till", "Fra", "Til"]
DEFAULT_SIGN_OFFS: List[str] = [
    "Best", "Best regards", "Best wishes", "Kind regards", "Warm regards", "Regards", "Many thanks", "Thanks",
    "Thank you", "Cheers", "Sincerely", "Yours sincerely", "Yours faithfully", "Yours truly", "Yours", "Love",
    "All the best", "Take care", "Mit freundlichen Grüßen", "Viele Grüße", "Liebe Grüße", "Gruß", "Grüße",
    "Cordialement", "Bien à vous", "Saludos", "Un saludo", "Atentamente", "Cordiali saluti", "Met vriendelijke groet",
    "Groeten", "Mvh", "Hälsningar", "Med vänlig hälsning",
]
# a party's role alone on the line below its name in a caption
CAPTION_ROLES = (
    "claimants?|defendants?|appellants?|respondents?|applicants?|petitioners?|plaintiffs?|interveners?|"
    "interested party|third party|first claimant|second claimant|first defendant|second defendant"
)
# (only suffixes that are no English word: "AS", "AB", "SE" end sentences in capitals too)
COMPANY_SUFFIX = r"(?:LIMITED|LTD|PLC|INC|INCORPORATED|CORP|CORPORATION|LLP|LLC|GMBH|S\.A\.|SARL|B\.V\.|N\.V\.|S\.P\.A\.|S\.R\.L\.|PTY|PTE)"
# words in capitals ending with a company suffix: "KESTREL LOGISTICS LTD", "HOLLOWAY & FINCH PLC"
CAPS_COMPANY = re.compile(rf"(?<![\w.&'-])((?:[A-Z][A-Z0-9'’.-]*[ \t]+(?:&[ \t]+)?){{1,6}}{COMPANY_SUFFIX})(?![\w&'-]|\.\w)")
# leading words of a capitals run that are no part of the company's name
CAPS_LEAD = frozenset("THE AND OF AGAINST V V. VS VS. BETWEEN BY FOR TO WITH FROM IN ON AT".split())
WRAPPED_NAME = re.compile(r"[ \t]*\n[ \t]*([A-Z][\w'’]*(?:-[A-Z][\w'’]*)?)(?=[ \t]*(?:[\n,]|$))")
TABLE_CELL = re.compile(r"(?i)<td\b[^<>]*>[ \t]*([^<>\n]{1,80}?)[ \t]*</td>")
MD_ROW = re.compile(r"(?m)^[ \t]*\|(.+)\|[ \t]*$")
MD_RULE = re.compile(r"^[ \t|:-]+$")
CELL_WORD = re.compile(r"^[^\W\d_][^\W\d_'’.-]*(?:['’-][^\W\d_]+)*\.?$")

# the words of an office a title may come before ("Lord Chief Justice", "Madam Speaker"): no one's name
OFFICES = frozenset(
    "chief justice secretary minister president speaker judge general attorney chancellor master registrar deputy "
    "commissioner governor mayor prime ombudsman chairman chairwoman chair of the state solicitor advocate".split()
)
# Titles written with a period as abbreviations ("Dr. Nilsen"); after another title a period
# ends the sentence.
ABBREVIATED_TITLES = frozenset({"Mr", "Mrs", "Ms", "Mx", "Dr", "Prof"})
# "born" also comes before other words ("born Catholic"): a name after it has two words at least
MULTI_WORD_CUES = frozenset({"born"})
POSSESSIVE = re.compile(r"['’]s$")


# the words a spoken answer opens with, never a name (a transcript's "WITNESS:" is a label too)
SPEECH_OPENERS = frozenset("yeah yes yep yup no nope nah sure okay ok well um uh er erm hmm oh right so".split())


def _line_or_sentence_start(text: str, start: int) -> bool:
    """Whether ``text[start]`` opens the text, a line or a sentence (its capital says nothing)."""
    before = text[max(0, start - 3) : start].rstrip(" \t")
    return not before or before[-1] in ".!?\n"


# the roles a note names a person by in parentheses after the name ("Rose (line manager)", "hope (pt)")
PAREN_ROLES = ["pt", "patient", "client", "service user", "resident", "employee", "staff member", "line manager", "manager",
               "team leader", "supervisor", "carer", "care worker", "key worker", "keyworker", "social worker", "nurse", "gp",
               "teacher", "tutor", "pupil", "student", "tenant", "landlord", "landlady", "witness", "victim", "suspect",
               "complainant", "claimant", "caller", "driver", "neighbour", "neighbor", "chair", "minutes", "note taker"]


def _role_named(word: str) -> bool:
    """Whether ``word``, before a role in parentheses, is a name: capitalised, a word a greeting
    may address by name (``names.greeted_name``: "Rose", "Okafor"; not "Manager", "Parents"); in
    lower case a listed given name or a name that is a word ("hope")."""
    if word[:1].isupper():
        return greeted_name(word)
    return word in name_lists().given or word in word_names()


def _all_name_words(run: str) -> bool:
    """Whether every word of ``run`` is a listed name, a name that is a word or no common word
    ("Ingo", "Will", "Okafor"; not "Chair's Foreword")."""
    lists = name_lists()
    words = [POSSESSIVE.sub("", w).lower() for w in re.findall(r"[^\W\d_][\w'’]*", run)]
    return all(w in lists.given or w in lists.family or w in word_names() or not is_common_word(w) for w in words)


def _field_name(text: str, start: int, end: int, titles: frozenset) -> Optional[Tuple[int, int]]:
    """The name at the start of the field value ``text[start:end]``: its words up to the
    first word that is no name word (None: no name there)."""
    # Markdown emphasis around the value or the label ("**Name:** *Ottilie Brandvold*")
    while start < end and text[start] in "*_` \t":
        start += 1
    while end > start and text[end - 1] in "*_` \t":
        end -= 1
    # "+" and "&" part the words of a URL-encoded form ("name=Ingeborg+Lunde&email=...")
    words = [m for m in re.finditer(r"[^\s,+&]+|,", text[start:end])]
    kept: List["re.Match[str]"] = []
    commas = 0
    for m in words:
        word = m.group()
        if word == ",":
            commas += 1
            if commas > 1 or not kept:
                break
            continue
        if not kept and word.rstrip(".").lower() in titles:
            continue  # a title: pii_titles' own rule marks what follows
        if not kept and word.lower() in SPEECH_OPENERS:
            return None  # a transcript's answer ("WITNESS: Yeah, it's ..."), no form's value
        if any(c.isdigit() for c in word) or not FIELD_NAME_WORD.match(word):
            break
        if word[0].isalpha() and not word[0].isupper() and word not in ("and",):
            # a value typed in lower case ("Customer: rose-marie o'brien") is a name while its
            # words are name words (listed, rare in English: kin_name_word); none after a capital
            if (kept and kept[0].group()[:1].isupper()) or not kin_name_word(word.rstrip("."), name_lists()):
                break
        kept.append(m)
        if word.endswith(".") and len(word.rstrip(".")) > 2:
            break  # a sentence ends here ("Patient: Aoife Byrne. History of..."); not an initial ("J.")
    while kept and kept[-1].group() in ("&", "/", "and"):
        kept.pop()
    if not kept or not (kept[0].group()[:1].isupper() or kept[0].group()[:1].islower()):
        return None
    first, last = start + kept[0].start(), start + kept[-1].end()
    while last > first and text[last - 1] in ".'’":
        last -= 1
    return first, last


class TitleDetector:
    def __init__(
        self,
        name: str,
        titles: List[str],
        label: str,
        spans_key: str,
        variant_cues: List[str],
        kinship: List[str],
        fields: Optional[List[str]] = None,
        headers: Optional[List[str]] = None,
        sign_offs: Optional[List[str]] = None,
        captions: bool = True,
        tables: bool = True,
        address_fields: Optional[List[str]] = None,
    ) -> None:
        self.name = name
        self.label = check_label(label)
        self.spans_key = spans_key
        self.pattern = re.compile(rf"\b(?:{alternatives(titles)})(\.?)\s+({NAME_RUN})")
        # cues are matched in any casing ("Née", "Married name:"); the name words are not
        self.variant = re.compile(rf"(?<!\w)(?i:{alternatives(variant_cues)})(?:[ \t]*[:,][ \t]*|[ \t]+)({NAME_RUN})") if variant_cues else None
        self.kinship = (
            # the name after the word, a comma or an opening parenthesis ("child (ruby-mae, yr1)")
            re.compile(rf"(?<!\w)(?i:{alternatives(kinship)})(?:,[ \t]*|[ \t]+\(?)(?:(?:named|called)[ \t]+)?({NAME_RUN}|[a-z]+(?:-[a-z]+)?\b)") if kinship else None
        )
        # a name in quotes after an alias cue or a kinship word ('a man I know as "Tank"', '(a.k.a.
        # "JP", "Smithy")', 'THE CHILD BABY "PEARL"'): the quotes close right after the name words,
        # so a quoted title is none ('also known as "Deutschland über alles"'); or between a given
        # name and the family name ("Margaret 'Peggy' O'Sullivan", 'Albrecht "Ali" Höhler'). Found
        # from the quoted run, then the words before it: a scan for quotes is cheap in a long text
        quoted = [*variant_cues, *QUOTED_CUES, *kinship] if variant_cues or kinship else []
        self.quoted = re.compile(rf"[\"“‘']({SHORT_RUN})[\"”’'](?![\w’'])") if quoted else None
        self.alias_cue = re.compile(rf"(?<!\w)(?i:{alternatives(quoted)})[ \t]*[:,]?[ \t]*$") if quoted else None
        self.given_before = re.compile(r"(?<![\w'’])([A-Z][\w'’-]{0,40})[ \t]{1,3}$")
        self.family_after = re.compile(rf"[ \t]{{1,3}}({SHORT_RUN})(?![\w'’])")
        # someone named with the writer, "me and X" or "X and me" ("so its just me n Sunday"): a
        # word a greeting could address by name (``names.greeted_name``: not "me and Mum")
        self.with_me = re.compile(r"(?<![\w'’])me[ \t]{1,3}(?:and|n|&)[ \t]{1,3}([A-Z][a-z'’-]{1,30})(?![\w'’-])"
                                  r"|(?<![\w'’-])([A-Z][a-z'’-]{1,30})[ \t]{1,3}(?:and|n|&)[ \t]{1,3}me\b") if kinship else None
        # a word before the role it is named by in parentheses ("Present: Rose (line manager)", "bed 12 -
        # hope (pt) settled"): a person, when the word is a name word (``_role_named``)
        self.role_paren = re.compile(rf"(?<![\w'’-])([A-Za-z][a-z'’-]{{1,30}})[ \t]?\((?:the[ \t]|her[ \t]|his[ \t]|their[ \t])?(?i:{alternatives([*PAREN_ROLES, *kinship])})\)") if kinship else None
        # a line of a label or a list that is a name in capitals, family name first ("JOHNSON, LATOYA R"
        # on a pharmacy label): the first word a listed family name
        self.caps_name_line = re.compile(r"(?m)^[ \t]*([A-Z][A-Z'’-]{1,30},[ \t]{1,2}[A-Z][A-Z'’-]{1,30}(?:[ \t][A-Z]\.?)?)[ \t]*$") if kinship else None
        # the parties of a case named without a period after "v", as court lists write them ("Hughes
        # v Brown", "R v Amari JOY-WILLIAMS and Dean PRICE"); the European Court's "X v. Turkey" cites
        # case law, left to the recognizer and the decision
        self.versus = re.compile(rf"(?<![\w.])(?:({SIDE_RUN})[ \t])?v[ \t]({SIDE_RUN}(?:[ \t]and[ \t]{SIDE_RUN})?)(?![\w'’.-])") if captions else None
        self.lower_title = re.compile(rf"(?<![\w.])(?:{alternatives(list(LOWER_CASE_TITLES))})\.?[ \t]+([a-z]+)\b")
        # a listed given name and an initial in lower case, before a mark or the end of a line ("lily m:")
        self.given_initial = re.compile(r"(?m)(?<![\w.'-])([a-z]{3,20}[ \t][a-z])\.?(?=[ \t]*[:,;)]|[ \t]*$)")
        self.list_item = re.compile(rf"[ \t]*({NAME_RUN})")
        self.titles = frozenset(t.lower() for t in titles)
        labels = alternatives(fields or [], space=r"[ \t]+")
        # the value: up to the end of the line, a wide gap, a table or list separator (a form's
        # "(BLOCK CAPITALS)" may stand between the label and its colon)
        # (Markdown emphasis may close the label before or after its colon: "**Name:**", "**Applicant**:")
        # or the next field's label on the line ("Recipient: Ms Roisin McGrory, ... Signed by: ROSE")
        self.field = re.compile(
            rf"(?im)(?<![^\W_])(?<![.-])(?:{labels})(?:\(s\))?(?:[ \t]{{0,2}}\((?:in[ \t])?(?:block[ \t])?(?:capitals|letters|caps)\))?[*_]{{0,2}}[ \t]*[:=][ \t]*([^\n|;<>()\t]*?)"
            rf"(?=[ \t]{{2,}}|[\n|;<>()\t]|$|[ \t.,]{{1,3}}(?:{labels})[*_]{{0,2}}[ \t]*[:=])"
        ) if labels else None
        address = alternatives(address_fields or [], space=r"[ \t]+")
        self.address = re.compile(rf"(?im)^[ \t>*_-]*(?:{address})[*_]{{0,2}}[ \t]*:[ \t]*(\S[^\n|<>\t]*?)[ \t]*$") if address else None
        # at the start of a line only (after quote marks): "subject to: approval" is no header
        self.header = re.compile(rf"(?m)^[ \t>]*(?i:{alternatives(headers)})[ \t]*:[ \t]*([^\n]*)") if headers else None
        self.sign_off = (
            # a few lower-case words may follow the sign-off ("Thanks for your patience,\nHope")
            re.compile(rf"(?m)^[ \t>]*(?i:{alternatives(sign_offs)})(?:[ \t]+[a-z]{{1,15}}){{0,4}}(?:[ \t]*[,!.][ \t]*(?:\n[ \t>]*)?|[ \t]*\n[ \t>]*)({NAME_RUN})[ \t]*$")
            if sign_offs else None
        )
        # the name a message opens with after its greeting ("Hi Precious,", "Dear Will\n"): any
        # capitalised word a greeting may address by name (``names.greeted_name``: not "Hi all,")
        self.greeting = re.compile(rf"(?m)^[ \t>]*(?i:{alternatives(GREETINGS)})[ \t]+({NAME_RUN})[ \t]*(?=[,!:]|$)") if sign_offs else None
        # the name after the dash on its line, or alone on the next ("-- \nPat": a mail's signature delimiter)
        # (or one hyphen glued to it, "born 02/02/2012. -Abdifatah")
        self.dash_sign_off = re.compile(rf"(?m)(?:^|[ \t>])(?:--|—|–|-(?=[A-Z]))[ \t]*(?:\n[ \t>]*)?({NAME_RUN})[ \t]*$") if sign_offs else None
        self.caption = (
            re.compile(rf"(?m)^[ \t]*(?:\(\d{{1,2}}\)[ \t]*)?([^\s(][^\n(]{{0,118}}?[^\s(])[ \t]*\n[ \t]*\(?(?i:{CAPTION_ROLES})\)?[ \t]*$")
            if captions else None
        )
        self.tables = tables

    def __call__(self, doc: Doc) -> Doc:
        text = doc_text(doc)
        found = []
        for match in self.pattern.finditer(text):
            if match.group(1) and text[match.start() : match.start(1)] not in ABBREVIATED_TITLES:
                continue  # "Chancellor of Justice. He argued": the period ended the sentence
            start, end = match.span(2)
            while end > start and text[end - 1] == ".":
                end -= 1
            possessive = POSSESSIVE.search(text, start, end)  # "Mrs Wacława Korsak's" names "Wacława Korsak"
            end = possessive.start() if possessive else self._wrapped(text, end)
            if end > start and not self._office(text[start:end]):
                found.append((start, end, self.label, f"{self.name}:title"))
        if self.variant is not None:
            for match in self.variant.finditer(text):
                cue = text[match.start() : match.start(1)].strip(" \t:,").lower()
                if cue in MULTI_WORD_CUES and len(match.group(1).split()) < 2:
                    continue
                found += self._name(text, *match.span(1), "variant")
                found += self._later_items(text, match.end())
        if self.quoted is not None and any(q in text for q in "\"“‘'"):
            found += self._quoted(text)
        if self.with_me is not None and "me" in text:
            for match in self.with_me.finditer(text):
                group = 1 if match.group(1) else 2
                if greeted_name(match.group(group)) and not (group == 2 and _line_or_sentence_start(text, match.start(2))):
                    found += self._name(text, *match.span(group), "with_me")
        if self.role_paren is not None and "(" in text:
            for match in self.role_paren.finditer(text):
                if _role_named(match.group(1)):
                    found += self._name(text, *match.span(1), "role")
        if self.caps_name_line is not None and "," in text:
            lists = name_lists()
            for match in self.caps_name_line.finditer(text):
                family, given = (w.strip().split()[0].lower() for w in match.group(1).split(",", 1))
                if family in lists.family and len(given) >= 3:  # not "PARIS, FRANCE" (both given names)
                    found += self._name(text, *match.span(1), "caps_line")
        if self.versus is not None and " v " in text and COURT_WORDS.search(text):
            found += self._parties(text)
        if self.kinship is not None:  # the titles of lower-case text go with the kinship words ("auntie shazia", "dr ahmed")
            lists = name_lists()
            for match in self.lower_title.finditer(text):
                word = match.group(1)
                # after a personal title a surname whatever its frequency ("dr khan", "mr shah"), but
                # no word of general use ("dr appointment", "mr right")
                if word in PRODUCT_NAMES:  # "ms excel", "ms powerpoint": Microsoft's, no one's
                    continue
                title = match.group(0).split()[0].rstrip(".").lower()
                if kin_name_word(word, lists) or (title in PERSONAL_TITLES_LOWER and not ordinary_word(word)):
                    found += self._name(text, *match.span(1), "lower_case_title")
            for match in self.given_initial.finditer(text):
                given, initial = match.group(1).split()
                if given in lists.given and not everyday_word(given) and given not in word_names() and initial not in ("a", "i"):
                    found += self._name(text, *match.span(1), "given_initial")
            for match in self.kinship.finditer(text):
                start, end = match.span(1)
                if text[start].islower() and not kin_name_word(text[start:end], lists):
                    continue
                found += self._name(text, start, end, "kinship")
        if self.field is not None and (":" in text or "=" in text):
            for match in self.field.finditer(text):
                name = _field_name(text, match.start(1), match.end(1), self.titles)
                if name is not None:
                    found.append((*name, self.label, f"{self.name}:field"))
        if self.address is not None and ":" in text:
            for match in self.address.finditer(text):
                start, end = match.span(1)
                while end > start and text[end - 1] in ".,;*_":
                    end -= 1
                value = text[start:end]
                if any(c.isdigit() for c in value) or (len(value.split()) >= 2 and value[0].isupper()):
                    found.append((start, end, "LOC", f"{self.name}:address"))
        if self.header is not None and ":" in text:
            for match in self.header.finditer(text):
                found += self._recipients(text, *match.span(1))
        if self.sign_off is not None:
            for pattern in (self.sign_off, self.dash_sign_off):
                for match in pattern.finditer(text):
                    line_start = text.rfind("\n", 0, match.start(1)) + 1
                    if pattern is self.dash_sign_off and text[line_start : match.start(1)].strip(" \t>-—–") and not _all_name_words(match.group(1)):
                        continue  # a heading's dash after its title ("Annual Report 2023 – Chair's Foreword")
                    found += self._name(text, *match.span(1), "sign_off")
        if self.greeting is not None:
            for match in self.greeting.finditer(text):
                if greeted_name(match.group(1).split()[0].rstrip(".")):
                    found += self._name(text, *match.span(1), "greeting")
        if self.caption is not None:
            found += self._captions(text)
        if self.tables and ("<" in text or "|" in text):
            found += self._cells(text)
        if self.tables and "," in text:
            found += [(start, end, self.label if label == "PERSON" else label, f"{self.name}:csv") for start, end, label in csv_column_fields(text)]
        add_char_spans(doc, found, self.spans_key)
        return doc

    @staticmethod
    def _office(words: str) -> bool:
        """Whether the words after a title name an office, not a person ("Lord Chief Justice",
        "Mr Speaker"): words of OFFICES only ("Mr Justice Green" names Mr Green)."""
        return all(w.lower() in OFFICES for w in re.findall(r"[^\W\d_]+", words))

    @staticmethod
    def _wrapped(text: str, end: int) -> int:
        """The end of a title's name that goes on at the start of the next line (a hard
        wrap, a ``<br>`` in the view): one capitalised word, not a common word, that ends
        its line or is followed by a comma ("Mrs Philippa\nDrummond-Hay")."""
        if text[end : end + 1] not in ("\n", " ", "\t"):
            return end
        match = WRAPPED_NAME.match(text, end)
        if match is None or is_common_word(match.group(1)):
            return end
        return match.end(1)

    def _recipients(self, text: str, start: int, end: int) -> List[Tuple[int, int, str, str]]:
        """The names of a header field's recipients: "Hale, Simone; Sato, Keiko",
        '"Mbatha, Lindiwe" <LMbatha@...>', "Priya Raman <priya@...>"."""
        found = []
        for item in re.finditer(r"[^;]+", text[start:end]):
            s, e = start + item.start(), start + item.end()
            for mark in ("<", "[", "("):  # the address after a display name
                cut = text.find(mark, s, e)
                e = cut if cut >= 0 else e
            while s < e and text[s] in " \t\"'":
                s += 1
            while e > s and text[e - 1] in " \t\"'":
                e -= 1
            name = _field_name(text, s, e, self.titles)
            if name is None:
                continue
            words = re.findall(r"[^\W\d_]+", text[name[0] : name[1]])
            # "To: All Staff" names no one; "Surname, Given" always does
            if "," in text[name[0] : name[1]] or any(not is_common_word(w) for w in words):
                found.append((*name, self.label, f"{self.name}:header"))
        return found

    def _captions(self, text: str) -> List[Tuple[int, int, str, str]]:
        """The parties of a caption: the line above a role ("Claimant", "(Defendant)"), a
        company when it ends with a company suffix; and capitals company names anywhere."""
        found = []
        assert self.caption is not None
        for match in self.caption.finditer(text):
            start, end = match.span(1)
            words = text[start:end].split()
            if not words or not all(FIELD_NAME_WORD.match(w) and (w[0].isupper() or not w[0].isalpha() or w in ("and",)) for w in words):
                continue
            if words[0].rstrip(":").upper() in CAPS_LEAD or any(c.isdigit() for c in text[start:end]):
                continue  # "BETWEEN:", "- and -", "Case 12"
            company = re.search(rf"(?<![\w.]){COMPANY_SUFFIX}\.?$", text[start:end].upper())
            while end > start and text[end - 1] in ".,:;":
                end -= 1
            found.append((start, end, "ORG" if company else self.label, f"{self.name}:caption"))
        for match in CAPS_COMPANY.finditer(text):
            start, end = match.span(1)
            for word in re.finditer(r"\S+", text[start:end]):
                if word.group().upper() not in CAPS_LEAD:
                    break
                start = match.start(1) + word.end() + 1
            while start < end and text[start].isspace():
                start += 1
            if start < end:
                found.append((start, end, "ORG", f"{self.name}:company"))
        return found

    def _cells(self, text: str) -> List[Tuple[int, int, str, str]]:
        """Table cells that hold a name only (HTML ``<td>``, Markdown rows below the header)."""
        cells: List[Tuple[int, int]] = [m.span(1) for m in TABLE_CELL.finditer(text)] if "<" in text else []
        if "|" in text:
            rows = list(MD_ROW.finditer(text))
            for k, row in enumerate(rows):
                header = k + 1 < len(rows) and MD_RULE.match(rows[k + 1].group(1)) is not None
                if header or MD_RULE.match(row.group(1)):
                    continue
                cells += [(row.start(1) + m.start(), row.start(1) + m.end()) for m in re.finditer(r"[^|]+", row.group(1))]
        found = []
        given, family = name_lists()
        for start, end in cells:
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            words = text[start:end].split()
            if not 1 <= len(words) <= 3:
                continue
            ok = all(
                CELL_WORD.match(w) and w[0].isupper() and len(w.rstrip(".")) >= 2
                and (w.lower() in given or w.lower() in family or not is_common_word(w.rstrip(".")))
                for w in words
            )
            if ok:
                found.append((start, end, self.label, f"{self.name}:table"))
        return found

    def _name(self, text: str, start: int, end: int, kind: str) -> List[Tuple[int, int, str, str]]:
        """The name in the run ``text[start:end]``: none when it starts with a stop word,
        month or weekday; leading titles, final periods and a possessive 's left out."""
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text[start:end])]
        first = text[start + words[0][0] : start + words[0][1]].rstrip(".").lower()
        # a stop word opens no name, but after a sign-off or a kinship word a capitalised given
        # name that is also a word does ("Best wishes,\nWill", "Thanks!\nMay", "partner Will")
        # (beside "me" a capitalised weekday or month is a name too: "just me n Sunday")
        if first in COMMON_WORDS and first not in PERSON_TITLES and not (kind == "with_me" and first not in STOP_WORDS) and not (kind in ("sign_off", "kinship", "greeting") and first in word_names() and text[start:start + 1].isupper()):
            return []
        while words and text[start + words[0][0] : start + words[0][1]].rstrip(".").lower() in PERSON_TITLES:
            words.pop(0)
        if not words:
            return []
        start, end = start + words[0][0], start + words[-1][1]
        while end > start and text[end - 1] == ".":
            end -= 1
        possessive = POSSESSIVE.search(text, start, end)
        end = possessive.start() if possessive else end
        return [(start, end, self.label, f"{self.name}:{kind}")] if end > start else []

    def _quoted(self, text: str) -> List[Tuple[int, int, str, str]]:
        """The names in quotes: an alias after its cue, a nickname between a given and a family
        name (each part its own span: a recognizer's longer one wins)."""
        assert self.quoted is not None and self.alias_cue is not None
        found = []
        for match in self.quoted.finditer(text):
            before = text[max(0, match.start() - 40) : match.start()]
            if self.alias_cue.search(before):
                found += self._name(text, *match.span(1), "alias")
                continue
            given = self.given_before.search(before)
            family = self.family_after.match(text, match.end())
            if given and family and may_be_given_name(given.group(1).lower()):
                offset = match.start() - len(before)
                for start, end in ((offset + given.start(1), offset + given.end(1)), match.span(1), family.span(1)):
                    found += self._name(text, start, end, "nickname")
        return found

    def _parties(self, text: str) -> List[Tuple[int, int, str, str]]:
        """The people a court list names on either side of "v": the capitalised words next to it
        (no stop word, code or word of a body: not "Bank" of "Lloyds Bank plc"), the Crown's side
        ("R", "Regina", "DPP") left out."""
        assert self.versus is not None
        def name_word(word: str) -> bool:
            parts = word.rstrip(".").lower().split("-")  # "JOY-WILLIAMS"
            return all(p and p not in COMMON_WORDS and p not in PARTY_BODIES and not any(c.isdigit() for c in p) for p in parts)

        found = []
        for match in self.versus.finditer(text):
            sides = [] if match.group(1) is None else [(match.start(1), match.group(1), True)]
            start = match.start(2)
            for part in re.split(r"([ \t]and[ \t])", match.group(2)):
                if part.strip() != "and":
                    sides.append((start, part, False))
                start += len(part)
            for start, part, left in sides:
                words = [m.span() for m in re.finditer(r"\S+", part)]
                kept = []  # the name words next to "v": the last ones of the left side, the first ones of the right
                for a, b in words[::-1] if left else words:
                    if not name_word(part[a:b]):
                        break
                    kept.append((a, b))
                if not kept or any(part[a:b].rstrip(".").lower() in CROWN for a, b in kept):
                    continue
                found += self._name(text, start + min(a for a, _ in kept), start + max(b for _, b in kept), "versus")
        return found

    def _later_items(self, text: str, pos: int) -> List[Tuple[int, int, str, str]]:
        """Inside parentheses, the names that start the later items of the list after a cue
        ("(married name: Adler 1984 to 2012; Whaling 2014 to present; born ...)")."""
        line_start = text.rfind("\n", 0, pos) + 1
        if text.rfind("(", line_start, pos) <= text.rfind(")", line_start, pos):
            return []
        close = text.find(")", pos)
        line_end = text.find("\n", pos)
        stop = min(x for x in (close, line_end, len(text)) if x >= 0)
        found: List[Tuple[int, int, str, str]] = []
        item = text.find(";", pos, stop)
        while item >= 0:
            match = self.list_item.match(text, item + 1, stop)
            if match:
                found += self._name(text, *match.span(1), "variant")
            item = text.find(";", item + 1, stop)
        return found


@Language.factory(
    "pii_titles",
    default_config={
        "titles": DEFAULT_TITLES,
        "label": "PERSON",
        "spans_key": "pii",
        "variant_cues": DEFAULT_VARIANT_CUES,
        "kinship": DEFAULT_KINSHIP,
        "fields": DEFAULT_FIELDS,
        "headers": DEFAULT_HEADERS,
        "sign_offs": DEFAULT_SIGN_OFFS,
        "captions": True,
        "tables": True,
        "address_fields": DEFAULT_ADDRESS_FIELDS,
    },
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_title_detector(
    nlp: Language,
    name: str,
    titles: List[str],
    label: str,
    spans_key: str,
    variant_cues: List[str],
    kinship: List[str],
    fields: List[str],
    headers: List[str],
    sign_offs: List[str],
    captions: bool,
    tables: bool,
    address_fields: List[str],
) -> TitleDetector:
    """titles (List[str]): words that introduce a person name (matched with or without a
    final period). label (str): PII type of the names. variant_cues (List[str]): words that
    introduce another name of the person ("née", "married name"). kinship (List[str]): words
    after which a relative's given name follows ("daughter"). fields (List[str]): form field
    labels whose value (after ":" or "=") starts with a person name. headers (List[str]):
    e-mail header fields (at the start of a line) whose recipients are names. sign_offs
    (List[str]): closings after which the writer's name follows ("Regards,"; also "--").
    An empty list switches a kind off. captions (bool): the parties of captions (the line
    above "Claimant", "Defendant"...) and company names in capitals. tables (bool): table
    cells that hold a name only. address_fields (List[str]): labels (at the start of a line)
    whose value is an address, typed LOC."""
    register_extensions()
    return TitleDetector(name, titles, label, spans_key, variant_cues, kinship, fields, headers, sign_offs, captions, tables, address_fields)
