"""pii_codes: rule-based detection of CODE identifiers (case and application numbers,
phone numbers, e-mail addresses, IBANs, URLs, ID-like tokens).

Patterns are plain regular expressions over the text, given by name in the config so
users can add or replace them; matches are widened to whole tokens.

Validated identifiers (``validated``: MAC, IPv4, IPv6, phone numbers in international and
national formats, obfuscated e-mails, card numbers, IBANs and national ID numbers with
their check digits, UK, Canadian and Dutch postcodes, typed LOC) are checked beyond their pattern (the ``phonenumbers`` and
``python-stdnum`` libraries, imported on first use) and marked ``validated`` in
``Span._.risk_explain``: such a span wins over any overlapping span of another detector,
whose parts outside it are kept (``spans.longest_non_overlapping``), so "+33 1 23 45 67 89"
is one CODE, not "+33" and a DATETIME.
"""
import ipaddress
import re
from functools import lru_cache
from typing import Callable, Dict, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..doc_reads import doc_text
from ..errors import Errors
from ..extensions import register_extensions
from ..spans import VALIDATED, add_pii_spans
from ..types import MONTHS
from .extend import STREET_ABBREVIATIONS, STREET_WORDS
from .names import ordinary_word

# the street words written whole, capitalised: pii_codes' street_titled and its needles
TITLED_STREET_WORDS = tuple(sorted(w.capitalize() for w in STREET_WORDS - STREET_ABBREVIATIONS))
DEFAULT_PATTERNS: Dict[str, str] = {
    "email": r"[\w.+-]{1,64}@[\w-]+(?:\.[\w-]+)+",
    "url": r"(?:https?://|www\.)[^\s<>\"]+[^\s<>\".,;:!?)\]]",
    "iban": r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b",
    "application_number": r"\b\d{1,6}/\d{2,4}(?:/\d{2,4})?\b",
    "phone": r"(?<![\w/])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){2,6}(?![\w/])",
    "long_number": r"(?<![\w.,/])\d{6,}(?![\w/]|[.,]\d)",
    "id_token": r"\b(?=[A-Za-z0-9-]{0,63}\d)(?=[A-Za-z0-9-]{0,63}[A-Za-z])[A-Za-z0-9][A-Za-z0-9-]{4,}\b",
    # account names: in a home folder path, a chat tag (Discord "name#1234"), a user@host
    # without a domain ("lukas.brenner@laptop"), an IRC nick after a timestamp ("] <dana_k>")
    "user_path": r"(?i)(?:\b[A-Z]:\\(?:Users|Documents and Settings)\\|(?<![\w.])/(?:home|Users)/)[^\\/\s:*?\"<>|]{1,64}",
    "chat_tag": r"(?<![\w#])[\w.]{2,32}#\d{4}\b",
    "user_at_host": r"(?<![\w.+-])[\w-]{1,64}[._][\w.-]{1,64}@[A-Za-z][\w-]{0,63}(?![\w.@-])",
    "chat_nick": r"(?<=\] )<[@+]?[A-Za-z_][\w`^{}|.-]{1,29}>",
    # a user, login, account or handle number: the label stays, the number is the CODE
    # (group "id": a pattern with that group marks the group only)
    "account_number": r"(?i)\b(?:user(?:name)?|login|handle|account|acct|member|customer|player|uid)(?:[ \t]?(?:id|no\.?|number))?[ \t]*[:#=]?[ \t]*#?(?P<id>\d{3,12})\b",
    # an employee, staff, student, patient, policy, claim, case or National Insurance number after its
    # label, also in parentheses ("Employee number: 004-77812", "Policy no. 77 1203 44", "Staff ID
    # 00-4471", "National Insurance number (QQ 12 34 56 C)": HMRC's example prefix, no validator's): digits
    # and letters with dashes, slashes or spaces before digits ("badge no 20931": "no" without its
    # period too); a label's number is someone's
    "labelled_id": (
        r"(?i)\b(?:employee|staff|personnel|payroll|badge|student|pupil|patient|hospital|policy|policyholder|claim|"
        r"membership|tenant|tenancy|client|case|file|reference|ref|national[ \t]insurance|nino|grievance|ticket|incident)"
        r"(?:[ \t]+(?:id|no\.?|nr\.?|number|num|\#|ref(?:erence)?))?"
        r"[ \t]*(?:[:#=][ \t]*|(?<=[.dDrRfFoO#])[ \t]+\(?)"
        r"(?P<id>(?=[A-Z0-9/ -]{0,24}\d)[A-Z0-9](?:[A-Z0-9]|[/-](?=[A-Z0-9])|[ ](?=\d)){3,24})(?![\w/-])"
    ),
    # a street written before its house number, as most of Europe writes it ("Calle Mayor 15",
    # "Rue des Lilas 12", "Hauptstraße 7", "Birkenweg 3a", "Storgata 5"): a street word or a
    # street suffix, the name, the number; a place (LOC), someone's home with the number
    "street_number": (
        r"\b(?:Calle|Carrer|Avenida|Avinguda|Paseo|Plaza|Rua|Rue|Boulevard|Via|Viale|Piazza|Corso|Largo)[ \t]+"
        r"(?:(?:de|del|la|las|los|do|da|dos|das|des|du|di|della|delle|dei)[ \t]+){0,2}[A-ZÀ-Ý][^\W\d_]{1,30}"
        r"(?:[ \t-][A-ZÀ-Ý][^\W\d_]{1,30}){0,3},?[ \t]{1,3}\d{1,4}[A-Za-z]?\b"
        r"|\b[A-ZÄÖÜÆØÅ][^\W\d_]{1,30}(?:straße|strasse|weg|gasse|platz|allee|damm|gata|gatan|gaten|veien|vegen|vej|gade|laan|"
        r"straat|plein|gracht|kade)[ \t]{1,3}\d{1,4}[a-z]?\b"
        # a house number and a street typed in lower case, ending a clause or before a lower-case
        # postcode ("14 birch grove, m14 5rt", "7 hollybush lane ws10 8jp");
        # street words no everyday phrase ends on ("10 min drive", "2 very close" are none)
        r"|(?<![\w.,/-])\d{1,4}[a-z]?[ \t]+(?:[a-z]{3,20}[ \t]+){1,2}"
        r"(?:street|road|lane|avenue|grove|crescent|terrace|gardens|mews|way)(?=[ \t]*(?:[,;\n]|$)|[ \t]+[a-z]{1,2}\d[a-z\d]?[ \t]?\d[a-z]{2}\b)"
    ),
    # a house number and a street in lower case with a street word's abbreviation, anywhere in a
    # clause ("42 kelvinhaugh st flat 1/2", "7 dunraven rd at 8"): a street's name that is no
    # ordinary word ("3 more st patrick's" is none)
    "street_abbreviated": r"(?<![\w.,/-])\d{1,4}[a-z]?[ \t]+(?P<name>(?:[a-z]{3,20}[ \t]+){1,2})(?:st|rd|ave|ln)\b(?!\.\w)",
    # a house number and a street's capitalised name and word ("40 Queen's Road"), whole even
    # where a recognizer reads the number and a name word apart
    "street_titled": (
        r"(?<![\w.,/-])\d{1,4}[A-Za-z]?[ \t]{1,3}(?:[A-Z][^\W\d_]{1,30}(?:['’]s)?[ \t]{1,3}){1,3}"
        rf"(?:{'|'.join(TITLED_STREET_WORDS)})\b"
    ),
    # a number written a digit to a box, as paper forms print them ("8 7 6 5 4 3 2 W", a date
    # "2 9 / 0 3 / 1 9 7 1"): six digits or more, each alone, with a check letter or two
    "boxed_digits": r"(?<![\w/.,])\d(?:[ \t]{1,2}(?:/[ \t]{1,2})?\d){5,24}(?:[ \t][A-Z]){0,2}(?![\w/]|[.,]\d)",
    # nine digits in threes and a check letter, as Australia's Centrelink writes a customer's
    # reference number ("CRN 204 339 817A"): no phone number ends with a letter
    "grouped_check_letter": r"(?<![\w/.,-])\d{3}[ \t]\d{3}[ \t]\d{3}[ \t]?[A-Z](?![\w-])",
    # a date of birth in words after its cue, however it is punctuated ("DOB - 14 Feb 1950 -",
    # "D.O.B: 3rd March 1961"); numeric ones are numeric_date's
    "birth_date": (
        r"(?i)(?:\bDOB|\bD\.O\.B\.?|date[ \t]of[ \t]birth|born(?:[ \t]on)?)[ \t:.–—-]{1,5}"
        rf"(?P<id>\d{{1,2}}(?:st|nd|rd|th)?[ \t](?:{'|'.join(m[:3].lower() for m in MONTHS)})[a-z]{{0,6}}\.?,?[ \t]\d{{4}})\b"
    ),
    # a house and a street by their numbers, as Pakistan's and India's sectors write them ("House 14, Street 7")
    "house_street": (
        r"\b(?:House|H\.[ \t]?No\.?)[ \t]{0,2}\d{1,4}[A-Z]?,[ \t]{0,2}(?:Street|St\.?|Lane|Road)[ \t]{0,2}(?:No\.?[ \t]{0,2})?\d{1,4}\b"
        # a plot or an erf by its number, as South African and East African addresses give a farm's or a stand's ("Plot 17, Kameeldrift")
        r"|\b(?:Plot|Erf)[ \t]{1,2}(?:No\.?[ \t]{0,2})?\d{1,5}[A-Z]?\b"
        # an Indian house number of its ward's and plot's numbers ("h.no 7-1-212/B", "H. No. 4-32/1")
        r"|(?i:\bh\.?[ \t]?no\.?|\bhouse[ \t]no\.?)[ \t]{0,2}\d{1,4}(?:[-/]\d{1,4}){1,4}(?:/[A-Za-z])?\b"
    ),
    # a phone number with its country code, whether or not a validator knows its range ("+44 7700
    # 900391" is in the range kept for fiction; a mistyped number is still someone's): "+", 1-3
    # digits, then 2-6 groups each after a space, dot or dash, 7 digits or more in all
    "intl_phone": r"(?<![\w+])\+(?=(?:[ .()-]{0,3}\d){7})\d{1,3}(?:[ .-](?:\(\d{1,4}\)[ .-]?)?\d{1,6}){2,6}(?![\w]|[.-]\d)",
    # a card's verification code or a PIN after its label ("CVV 587", "CVC2: 041", "PIN 4471"):
    # three or four digits no validator can check, as secret as the card number
    "security_code": r"(?i)\b(?:cvv2?|cvc2?|csc|cvn|security[ \t]code|pin)(?:[ \t]?(?:code|no\.?|number))?[ \t]{0,3}[:#=]?[ \t]{0,3}(?P<id>\d{3,4})\b",
    # a police officer's collar (warrant) number after the rank ("PC 2241 Sarah Doyle", "DC 5517
    # Morris"): it names one officer of a force as surely as the name beside it
    "collar_number": r"\b(?:PCSO|PC|DC|PS|DS|Sgt|Insp|Constable|Sergeant)\.?[ \t]{1,3}(?P<id>\d{2,6})\b",
    # handles: "first.last" in parentheses ("User 48213 (k.yamamoto)"), words joined by "_"
    # ("s_achterberg"); a file name in parentheses ("(setup.py)") is none
    "handle": r"(?<=\()[A-Za-z][A-Za-z0-9]{0,31}(?:[._][A-Za-z0-9]{1,32}){1,3}(?=\))",
    "snake_handle": r"(?<![\w.@/#$-])[A-Za-z][A-Za-z0-9]{0,31}_[A-Za-z0-9_]{0,31}[A-Za-z0-9](?![\w@/$-]|\.\w)",
    # everyday text: an @mention ("@kobrien", "@yusuf.h08"; not an e-mail: nothing before the @),
    # a profile on a social host written without a scheme ("instagram.com/nguyen.linh.photo",
    # "fqureshi.github.io"), a user in a URL path ("/users/ahmad.haddad/"), the value of a log
    # key naming a user ("user=ebrennan", 'username="o.petrenko"', "actor: m.obi") and sshd's
    # "for NAME from" an IP address
    "mention": r"(?<![\w.@/+-])@[A-Za-z0-9_](?:[\w.-]{0,62}[\w])?",
    "social_profile": (
        r"(?i)(?<![\w.-])(?:www\.)?(?:twitter|x|instagram|github|gitlab|facebook|tiktok|threads|linkedin|youtube|medium|twitch)"
        r"\.(?:com|net|tv)/(?:in/|@)?[\w.-]{1,64}[\w]|(?<![\w.-])[\w-]{1,39}\.github\.io"
    ),
    "url_user": r"(?i)/(?:users?|u|profiles?|people|members?|~)/(?P<id>[A-Za-z][\w.-]{0,62}[\w])",
    "log_user": (
        r"(?i)\b(?:user(?:_?name|_?id)?|login|uid|actor|target|owner|author|assignee|reporter|src_user|dst_user|"
        r"account(?:_?id)?|handle|nick(?:name)?|member)\"?[ \t]*(?:=|:)[ \t]*\"?(?P<id>[A-Za-z][\w.@+-]{0,62}[\w])"
    ),
    # the value of an id key in JSON or a log ('"id": "u-77120"', "session_id=ab12"): an
    # identifier of someone's record, whatever its shape ("u-77120" is no "F-16")
    "id_value": r"(?i)(?<![\w-])\"?(?:id|uid|uuid|[a-z]{1,20}_id)\"?[ \t]*[:=][ \t]*\"?(?P<id>(?=[\w.@+-]{0,63}\d)[A-Za-z0-9][\w.@+-]{1,62}[A-Za-z0-9])",
    # "vpn user is mwilliams", "her login is sarah.lin": a word that is no ordinary word
    "user_is": r"(?i)\b(?:user(?:_?name)?|login|handle|nick(?:name)?|gamertag|psn|alias)[ \t]+is[ \t]+(?P<id>[a-z][\w.-]{1,62}[\w])\b",
    "sshd_user": r"\bfor (?:invalid user )?(?P<id>[a-z_][a-z0-9_.-]{0,31}) from (?=\d{1,3}\.\d{1,3}\.|[0-9a-f]{0,4}:[0-9a-f:]*:)",
    # the login of a PAM session line ("pam_unix(sudo:session): session opened for user kfischer")
    "pam_user": r"\bsession (?:opened|closed) for user (?P<id>[a-z_][a-z0-9_.-]{0,31}[a-z0-9_])(?![\w.-])",
    # a log's user before its uid or its host ("connect to service Photos initially as user nokuthula
    # (uid=1004) from 192.168.1.57", "by user jdoe from 10.0.0.2")
    "log_as_user": r"\b(?:as|by|for)[ \t]user[ \t](?P<id>[a-z_][a-z0-9_.-]{0,31}[a-z0-9_])(?=[ \t]{0,2}\((?:uid|pid)=|[ \t]from[ \t])",
    # a place on a map: a pair of decimal degrees ("53.4808, -2.2426", "19.0760N 72.8777E"), a
    # degree-minute(-second) position ("57°08′54″N", "N 52° 22.123'"), a what3words address
    "coordinates": (
        r"(?<![\w.])[-+]?\d{1,3}\.\d{3,8}°?(?:[ \t]?[NSns])?[ \t]*,?[ \t]*[-+]?\d{1,3}\.\d{3,8}°?(?:[ \t]?[EWew])?(?![\w.])"
        r"|(?<![\w.])[-+]?\d{1,3}\.\d{4,8}(?![\w.])(?=[ \t]*\)|[ \t]*[,;]?[ \t]*(?:lon|lng|long)\b)"
        r"|(?i:\b(?:lat|lon|lng|latitude|longitude)\b)[ \t]*[:=]?[ \t]*[-+]?\d{1,3}\.\d{3,8}"
        r"|(?:[NSEW][ \t]?)?\d{1,3}°[ \t]?\d{1,2}(?:\.\d+)?[′'](?:[ \t]?\d{1,2}(?:\.\d+)?[″\"])?(?:[ \t]?[NSEW](?!\w))?"
    ),
    # a New Zealand rural delivery route before the town and its four-digit postcode ("12 Te Awa Road,
    # RD 3, Ōpōtiki 3198"): with the road it narrows the home to a few farms
    "rural_delivery": r"(?<=,[ \t])RD[ \t]?\d{1,2}(?=,[ \t]{1,3}[^\W\d_]{2,30}(?:[ \t][^\W\d_]{2,30}){0,2}[ \t]{1,3}\d{4}\b)",
    # the author a forum's quote names ("[quote=tiggerbounce]", '[quote="Sam K"]', "[quote name=lil_b]"): a user
    "forum_quote": r"(?i)\[quote[ \t]?(?:name)?=[ \t]?[\"']?(?P<id>[^\]\"'\n;]{1,64}?)[\"']?(?:;[^\]\n]{0,40})?\]",
    # vehicle plates of two letters and five digits (Norway, Denmark, Sweden's old ones: "EL 48213");
    # the letter-digit-letter plates of other countries are id_token's
    "plate": r"(?<![\w-])[A-Z]{2}[ -]?\d{5}(?![\w-])",
    # the last line of a postal address: a five-digit postcode and its town after a comma or at
    # a line start ("Calle Mayor 15, 28013 Madrid", "75001 Paris"), typed LOC
    "postcode_town": r"(?:(?<=,[ \t])|(?<=^)|(?<=\n))(?:\d{5}|\d{2}-\d{3})[ \t]{1,3}[A-Z][^\W\d_]{1,30}(?:[ -][A-Z][^\W\d_]{1,30})?(?![\w-])",
    "what3words": r"(?<![\w/])///[a-z]{2,20}\.[a-z]{2,20}\.[a-z]{2,20}(?!\w|\.\w)",
    # India's plates: a state's two letters, its district's number, a series of one to three
    # letters and four digits ("MH 12 AB 3456", "KA-05-MN-2211", "DL3CAB1234")
    "plate_in": r"(?<![\w-])[A-Z]{2}[ -]?\d{1,2}[ -]?[A-Z]{1,3}[ -]?\d{4}(?![\w-])",
    # a plate of any country's format after its label ("Vic rego 1HX 7PQ", "reg: AB12 CDE", "number plate
    # 191-D-12345"): capitals and digits, both, in up to three groups
    "labelled_plate": (
        r"(?<![\w-])(?i:rego|registration|reg\.?|number[ \t]plate|licen[cs]e[ \t]plate|plate|vrm)(?:[ \t](?i:no\.?|number))?[ \t]{0,3}[:#]?[ \t]{0,3}"
        r"(?P<id>(?=[A-Z0-9 -]{0,12}\d)(?=[A-Z0-9 -]{0,12}[A-Z])[A-Z0-9]{1,4}(?:[ -][A-Z0-9]{1,5}){0,2})(?![\w-])"
    ),
    # a person's name as the quoted value of a name key in JSON or a log ('"last":"Ige"',
    # "cardholder='JOHNSON-OBI/ADAEZE'"), typed PERSON: letters and a name's marks, no digit;
    # under the bare key "name" (an event's, a product's too) only a capitalised value
    "name_value": (
        r"(?i)(?<![\w-])[\"']?(?P<key>(?:first|last|middle|given|family|full|display|maiden|customer|patient|client|contact|"
        r"employee|member|card_?holder|account_?holder|holder|person|applicant|tenant|student|pupil|guest|passenger|"
        r"recipient|sender)[ _-]?name|name|surname|forename|first|last|given|family|cardholder|card_holder)[\"']?[ \t]{0,3}[:=][ \t]{0,3}"
        r"(?:\[[ \t]{0,3})?[\"']"  # a list's first value too (FHIR's '"given":["Rose"]')
        r"(?P<id>[^\W\d_][^\W\d_'’.-]{0,40}(?:(?:[ '’./-]|, ){1,2}[^\W\d_]{1,40}){0,5})(?=[\"'])"
    ),
    # a ZIP code after its label, with or without a colon ("zip 78521", '"zip":"60614"'), typed LOC
    "zip_code": r"(?i)(?<![\w-])[\"']?(?:zip(?:[ _-]?code)?|postal[ _-]?code)[\"']?[ \t]{0,3}[:=#]?[ \t]{0,3}[\"']?(?P<id>\d{5}(?:-\d{4})?)(?![\w-])",
    # the common name of an LDAP entry or a calendar's attendee ('dn="CN=Murphy\, Seán,OU=..."',
    # "ATTENDEE;CN=Summer Okafor:mailto:..."), typed PERSON: up to the next unescaped comma, ";" or ":"
    "common_name": r"(?<![\w-])CN=(?P<id>(?:[^,;:\n\\\"=]|\\,){1,80})",
    # the name field of a passport's machine-readable zone ("P<IRLMURPHY<<DECLAN<FRANCIS<<<"):
    # surname, then given names, "<" between the words; typed PERSON
    "mrz_name": r"(?<![A-Z0-9<])P[A-Z<]<?[A-Z]{3}(?P<id>[A-Z]{1,39}(?:<[A-Z]{1,39}){0,4}<<[A-Z]{1,39}(?:<[A-Z]{1,39}){0,5})(?=<)",
    # a Reddit user ("u/throwaway_kasia88")
    "reddit_user": r"(?<![\w/])u/(?P<id>[A-Za-z0-9_-]{3,20})(?![\w/-])",
    # the user of a web server's access log line (Common Log Format: host, ident, user, [time])
    "access_log_user": (
        r"(?m)^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:]{2,39})[ \t]+\S{1,64}[ \t]+"
        r"(?P<id>[^\s\[\]\"-][^\s\[\]\"]{0,63})[ \t]+\[\d{1,2}/[A-Za-z]{3}/\d{4}:"
    ),
    # the user of a sudo log line ("sudo:  ewakowalska : TTY=pts/0 ; ...") and of a vsftpd one
    # ("[pid 2211] [oisin.breathnach] OK UPLOAD")
    "sudo_user": r"\bsudo:[ \t]{1,3}(?P<id>[a-z_][a-z0-9_.-]{0,31})[ \t]{1,3}:[ \t]{1,3}(?:TTY|PWD|USER)=",
    "ftp_user": r"\[pid \d{1,10}\] \[(?P<id>[^\]\s]{1,64})\] (?:OK|FAIL)\b",
    # a Cash App cashtag ("$tayjones_09"; not "$20", "$HOME")
    "cashtag": r"(?<![\w$])\$(?=[A-Za-z0-9_]{0,19}[a-z])[A-Za-z][A-Za-z0-9_]{2,19}(?![\w$])",
    # a handle after the app it is on ("snap its lils.x0", "insta: maya_k.93", "gh is smurugan-dev"): with a
    # digit, a dot, an underscore or a hyphen ("add me on snap later" holds none)
    "app_handle": (
        r"(?i)\b(?:snap(?:chat)?|insta(?:gram)?|ig|tiktok|discord|telegram|kik|venmo|cash[ \t]?app|github|gh|gitlab)\b"
        r"(?:[ \t]{1,3}(?:is|its|it's|name|handle|username|user|id|me)){0,2}[ \t]{0,3}[:=-]?[ \t]{0,3}@?"
        r"(?P<id>(?=[\w.-]{0,30}[\d._-])[a-z0-9][\w.-]{1,30}[a-z0-9])(?![\w.-])"
    ),
    # a link without its scheme to a page of a scheduling or link site, whose path is someone's
    # page ("calendly.com/aisling-ohare-physio", "linktr.ee/dana.k")
    "profile_link": r"(?i)(?<![\w.@/-])(?:calendly\.com|linktr\.ee|paypal\.me|venmo\.com|cash\.app|wa\.me|t\.me|buymeacoffee\.com|ko-fi\.com|about\.me)/[\w.$~+-]{1,80}[\w$]",
    # a number read out (a voicemail, a call transcript): seven or more digit words
    # ("oh seven seven double one four eight two nine three six"; digits may end it: "oh-seven-seven double-oh 900 261")
    # (pairs read with commas between: "nine four, four one, two two, zero eight")
    "spoken_number": (
        r"(?i)(?<![\w-])(?:oh|zero|nought|one|two|three|four|five|six|seven|eight|nine|double|triple)"
        r"(?:(?:[ \t-]|,[ \t]){1,3}(?:oh|zero|nought|one|two|three|four|five|six|seven|eight|nine|double|triple|\d{1,4})){6,24}(?![\w-])"
    ),
    # a code spelled out, its letters and its digits in words
    # ("policy is A-Q-seven-seven-one-four-four", a postcode "L, S, six, four, Q, Z"): capitals and digit
    # words, hyphens or commas between, a capital and two digit words at least (``_spelled_units``)
    "spelled_code": (
        r"(?<![\w-])(?:(?:[A-Z]|(?i:oh|zero|nought|one|two|three|four|five|six|seven|eight|nine|double|triple))(?:-|,[ \t])){3,16}"
        r"(?:[A-Z]|(?i:oh|zero|nought|one|two|three|four|five|six|seven|eight|nine))(?![\w-])"
    ),
}
FILE_EXTENSIONS = frozenset(
    "py md txt json yaml yml cfg ini toml csv tsv pdf doc docx xls xlsx ppt pptx png jpg jpeg gif svg html htm "
    "js ts css sh log xml zip gz tar exe dll so c h cpp hpp java rb go rs php sql db lock".split()
)
# Every quantifier that a failing match attempt can run through is bounded (the local part
# of an e-mail: 64 characters, as RFC 5321 allows; the look-aheads of id_token: 63), so a
# long run without spaces ("a-a-a-...", minified JSON) costs linear time: unbounded, each of
# its n start positions scanned the rest of the run (100 kB took 104 s).
# Tokens with letters and digits that are ordinary words, not identifiers.
NOT_IDS = re.compile(r"^(?:\d+(?:st|nd|rd|th|s|am|pm|km|kg|cm|mm|m|g|mg|mcg|ug|ml|iu|mmol|ms|mins?|hrs?|kb|mb|gb|tb|mhz|ghz|kwh|mah|mph|px)"
                     r"|\d+-\w+|[A-Za-z]+-\d+s?)$", re.IGNORECASE)
MIN_PHONE_DIGITS = 8
# validated patterns whose match may start words too early, on plain words before the identifier:
# a refused match is searched again from its next word ("me at kojo dot owusu-ansah" refused, "kojo
# dot owusu-ansah at outlook dot com" valid); a refused number's tail is no number of its own
RETRY_INSIDE = frozenset({"email_obfuscated"})


def _next_word(text: str, start: int, end: int) -> int:
    """Where the word after the one at ``start`` begins, within ``text[start:end]`` (else ``end``)."""
    k = start
    while k < end and not text[k].isspace():
        k += 1
    while k < end and text[k].isspace():
        k += 1
    return k
# All-numeric calendar dates (2013-09-25, 25.09.2013, 09/25/2013) look like phone or
# application numbers to the patterns above: they are written as DATETIME instead, found
# (and validated) before the other patterns run, so that "2013-09-25 2014-10-26" is two
# dates, not one phone number.
_DATE = r"(?:(?P<year>\d{4})(?P<s1>[-./])(?P<month>\d{1,2})(?P=s1)(?P<day>\d{1,2})|(?P<a>\d{1,2})(?P<s2>[-./])(?P<b>\d{1,2})(?P=s2)(?:\d{4}|\d{2}))"
NUMERIC_DATE = re.compile(_DATE)
NUMERIC_DATE_IN_TEXT = re.compile(rf"(?<![\w/.-]){_DATE}(?![\w/]|[.-]\d)")
DATE_LABEL = "DATETIME"
# what a match of these patterns is, whatever the component's label
KEY_LABELS = {"numeric_date": DATE_LABEL, "birth_date": DATE_LABEL, "postcode": "LOC", "postcode_town": "LOC", "street_number": "LOC", "street_abbreviated": "LOC", "street_titled": "LOC", "house_street": "LOC", "rural_delivery": "LOC", "zip_code": "LOC", "name_value": "PERSON",
              "common_name": "PERSON", "mrz_name": "PERSON"}
# patterns whose context verifies their format as a check digit would: a five-digit postcode with
# its town after a comma or at a line start, a number after its label ("Employee number:", "zip"),
# a name as a name key's value, a street with its house number, a position in degrees (its
# degree sign and minutes, or a pair of decimals: a recognizer read "26'46"N 79°58'56"W" as a date); their
# matches are marked validated, so they win over a recognizer's overlapping span ("15, 28013"
# typed a date hid ", 28013 Madrid")
CONTEXT_VALIDATED = frozenset({"postcode_town", "labelled_id", "street_number", "street_abbreviated", "street_titled", "house_street", "rural_delivery", "coordinates", "zip_code", "name_value"})
# Substrings without which a shipped pattern cannot match (one of them must be in the text; in
# its lower case for a pattern read in any case, then with no "s" or "i": the regex also reads
# "ſ" and "ı" as those, lower case does not): a court judgment seldom holds an "@", and a pattern skipped is a scan of the text less
# (the scans are most of pii_codes' time). A pattern a config replaces is always run.
NEEDS: Dict[str, Tuple[str, ...]] = {
    "email": ("@",), "email_address": ("@",), "user_at_host": ("@",), "mention": ("@",), "email_spaced": ("@",),
    "url": ("http", "www."), "url_user": ("/",), "user_path": ("\\", "/home/", "/u"), "what3words": ("///",),
    "social_profile": (".com/", ".net/", ".tv/", "hub."), "chat_tag": ("#",), "chat_nick": ("] <",),
    "handle": ("(",), "snake_handle": ("_",), "sshd_user": ("for ",), "pam_user": ("session ",), "log_as_user": (" user ",),
    "name_value": ('"', "'"), "cashtag": ("$",), "profile_link": ("calendly.com/", "nktr.ee/", "paypal.me/", "venmo.com/", "h.app/", "wa.me/", "t.me/", "coffee.com/", "ko-f", "about.me/"),
    "reddit_user": ("u/",), "access_log_user": ("[",), "sudo_user": ("sudo:",), "ftp_user": ("[pid ",),
    "common_name": ("CN=",), "mrz_name": ("<<",), "street_titled": TITLED_STREET_WORDS, "house_street": ("House", "H.", "Plot", "Erf", "h.no", "h. no", "h.n", "house no"),
    "birth_date": ("dob", "d.o.b", "date", "born"),
    "rural_delivery": ("RD",), "forum_quote": ("[quote",),
}
# what a validated match takes in right before it on its line: a postcode its town ("Leeds LS1 4AB")
TAKES_IN_BEFORE = {
    "postcode": re.compile(r"(?:(?<=,[ \t])|(?<=^)|(?<=\n))[A-Z][^\W\d_]{1,30}(?:[ -][A-Z][^\W\d_]{1,30})?[ \t]{1,3}$"),
}


# ---------------------------------------------------------------- validated identifiers
# Every pattern has bounded repeats only (linear time on long runs without spaces).
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_AT = r"(?:\s?[\[({<]\s?(?:at|AT)\s?[\])}>]\s?|\s(?:at|AT)\s)"
_DOT = r"(?:\s?[\[({<]\s?(?:dot|DOT)\s?[\])}>]\s?|\s(?:dot|DOT)\s|\.)"
VALIDATED_PATTERNS: Dict[str, str] = {
    "mac": r"(?<![\w:.-])(?:[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4})(?![\w:-]|\.\w)",
    "ipv4": rf"(?<![\w.]){_OCTET}(?:\.{_OCTET}){{3}}(?:/\d{{1,2}})?(?![\w]|\.\d)",
    "ipv6": r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|\d{1,3}(?:\.\d{1,3}){3})?(?![\w:])",
    # the local part's dots may be spelled out too ("kojo dot owusu-ansah at outlook dot com")
    "email_obfuscated": rf"(?<![\w.+-])[\w.+-]{{1,64}}(?:[ \t](?:dot|DOT)[ \t][\w+-][\w.+-]{{0,63}}){{0,3}}{_AT}[\w-]{{1,63}}(?:{_DOT}[\w-]{{1,63}}){{1,4}}",
    # an e-mail address ending in a letter domain: validated, so a recognizer's longer span ("Rebecca
    # Lindqvist <becks.l@icloud.com>" read as one PERSON) cannot take it over
    "email_address": r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){0,4}\.[A-Za-z]{2,24}(?![\w-]|\.\w)",
    # an "@" with spaces beside it ("zeb.quack @ example.org"), a letter TLD at the end ("me @ 5.30" is no address)
    "email_spaced": r"(?<![\w.+-])[\w.+-]{1,64}(?:[ \t]{1,2}@[ \t]{0,2}|@[ \t]{1,2})[\w-]{1,63}(?:\.[\w-]{1,63}){0,3}\.[A-Za-z]{2,6}(?![\w-])",
    "phone_number": r"(?<![\w+/.,-])(?:\+|00|\()?\d(?:[ .()\-\u00a0]{0,3}\d){6,16}\)?(?![\w/]|[.,-]\d)",
    "card": r"(?<![\w-])\d{4}(?:[ -]?\d{3,4}){2,4}(?![\w-])",
    "iban_any": r"(?<![\w])[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]{4}){2,7}(?:[ -]?[A-Za-z0-9]{1,3})?(?!\w)",
    "national_id": r"(?<![\w-])(?:[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]|\d{3}-\d{2}-\d{4}|\d{6}[-+A]\d{3}[0-9A-Za-z]|\d{8}-?[A-Za-z]|[A-Za-z]{6}\d{2}[A-Za-z]\d{2}[A-Za-z]\d{3}[A-Za-z]|[12](?: ?\d{2}){3} ?\d{3} ?\d{3}(?: ?\d{2})?)(?![\w-])",
    # postcodes by their national formats (typed LOC): UK "LS6 2QB", Canada "M5B 2H1",
    # Netherlands "1015 CJ" before a place name (not a year and "AD"/"BC" or a country code)
    "postcode": (
        r"(?<![\w-])(?:(?:[A-Z]{1,2}\d[A-Z\d]?|GIR) ?\d[ABD-HJLNP-UW-Z]{2}|[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d"
        r"|[1-9]\d{3} ?(?!AD|BC|CE|US|UK|EU|UN)[A-Z]{2}(?=[ \t]+[A-Z][a-z])"
        # a UK postcode typed in lower case ("ls6 2ab"), with its space, no ordinal ("b2 1st")
        r"|[a-z]{1,2}\d[a-z\d]? (?!1st|2nd|3rd|\dth)\d[abd-hjlnp-uw-z]{2})(?![\w-])"
    ),
    # credentials whose format is their own check: a JWT (two base64url JSON parts and a
    # signature), GitHub, Slack, AWS and OpenAI-style keys. Validated, so a longer NER span
    # ("Bearer eyJ...", typed ORG) cannot take them over and a risk decision cannot unmask them.
    "secret_token": (
        r"(?<![\w-])(?:eyJ[\w-]{5,512}\.eyJ[\w-]{2,2048}\.[\w-]{10,512}|gh[pousr]_[A-Za-z0-9]{36,251}"
        r"|github_pat_\w{22,255}|xox[abposr]-[A-Za-z0-9-]{10,250}|AKIA[0-9A-Z]{16}|sk-[\w-]{20,200})(?![\w-])"
    ),
}
# 30 regions whose national formats are tried for a number without a country code (at
# least MIN_PHONE_DIGITS digits: shorter national numbers are too often something else).
DEFAULT_PHONE_REGIONS = [
    "US", "CA", "GB", "IE", "FR", "DE", "AT", "CH", "BE", "NL", "LU", "ES", "PT", "IT", "GR",
    "SE", "NO", "DK", "FI", "PL", "CZ", "TR", "RU", "IN", "JP", "AU", "NZ", "ZA", "BR", "MX",
]
_YEARS_ONLY = re.compile(r"(?:(?:1[5-9]|20)\d\d\W{0,3})+")


@lru_cache(maxsize=None)
def _national_lengths(region: str) -> frozenset:
    """Digit counts a national number of ``region`` can have, with a one-digit trunk
    prefix or without: regions that cannot match a candidate's length are not parsed."""
    import phonenumbers

    metadata = phonenumbers.PhoneMetadata.metadata_for_region(region)
    lengths = set(metadata.general_desc.possible_length or ()) if metadata else set()
    return frozenset(lengths | {n + 1 for n in lengths})


@lru_cache(maxsize=8192)
def _valid_phone_digits(candidate: str, regions: Tuple[str, ...]) -> bool:
    import phonenumbers  # lazily: start-up stays fast

    international = candidate.startswith("+")
    digits = sum(c.isdigit() for c in candidate)
    for region in [None] if international else regions:
        if region is not None and digits not in _national_lengths(region):
            continue
        try:
            if phonenumbers.is_valid_number(phonenumbers.parse(candidate, region)):
                return True
        except phonenumbers.NumberParseException:
            continue
    return False


def _valid_phone(value: str, regions: List[str]) -> bool:
    digits = sum(c.isdigit() for c in value)
    if digits < MIN_PHONE_DIGITS or _YEARS_ONLY.fullmatch(value) or value.count("(") != value.count(")"):
        return False
    candidate = "+" + value[2:] if value.startswith("00") else value
    return _valid_phone_digits(candidate, tuple(regions))


def _is_handle(value: str) -> bool:
    """"k.yamamoto", "li.wei2": not a file name ("setup.py") or an abbreviation ("i.e")."""
    last = re.split(r"[._]", value)[-1]
    return len(last) >= 2 and last.lower() not in FILE_EXTENSIONS


def _valid_ipv6(value: str) -> bool:
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return sum(c.isalnum() for c in value) >= 2  # not "::"


def _valid_card(value: str) -> bool:
    from stdnum import luhn

    digits = re.sub(r"\D", "", value)
    return 13 <= len(digits) <= 19 and luhn.is_valid(digits)


def _valid_iban(value: str) -> bool:
    from stdnum import iban

    return iban.is_valid(value)


def _valid_national_id(value: str) -> bool:
    """US SSN, Swedish/Danish/Finnish personal numbers, Spanish DNI, Italian codice
    fiscale, French NIR: each with its check digits (python-stdnum); a UK NINO by its
    allocation rules."""
    from stdnum.dk import cpr
    from stdnum.es import dni
    from stdnum.fi import hetu
    from stdnum.fr import nir
    from stdnum.it import codicefiscale
    from stdnum.se import personnummer
    from stdnum.us import ssn

    return _valid_nino(value) or any(module.is_valid(value) for module in (ssn, personnummer, cpr, hetu, dni, codicefiscale, nir))


def _valid_nino(value: str) -> bool:
    """A UK National Insurance number by HMRC's allocation rules (python-stdnum has none):
    two prefix letters (not D F I Q U V; the second not O; not BG GB NK KN TN NT ZZ), six
    digits, a suffix A-D. HMRC's own example prefix QQ is not allocated, so it fails."""
    compact = value.replace(" ", "").upper()
    if len(compact) != 9 or not (compact[:2].isalpha() and compact[2:8].isdigit() and compact[8] in "ABCD"):
        return False
    first, second = compact[0], compact[1]
    return first not in "DFIQUV" and second not in "DFIOQUV" and compact[:2] not in ("BG", "GB", "NK", "KN", "TN", "NT", "ZZ")


def _email_obfuscated(value: str) -> bool:
    # the plain-word form ("john at example dot com") needs a " dot " and a TLD-like end
    if re.search(r"[\[({<]", value):
        return True
    return bool(re.search(r"\s(?:dot|DOT)\s[A-Za-z]{2,6}$", value))


VALIDATORS: Dict[str, Callable[..., bool]] = {
    "ipv6": _valid_ipv6,
    "card": _valid_card,
    "iban_any": _valid_iban,
    "national_id": _valid_national_id,
    "email_obfuscated": _email_obfuscated,
}


def _valid_date(match: "re.Match[str]") -> bool:
    if match.group("year"):
        return 1 <= int(match.group("month")) <= 12 and 1 <= int(match.group("day")) <= 31
    first, second = int(match.group("a")), int(match.group("b"))
    return 1 <= min(first, second) <= 12 and 1 <= max(first, second) <= 31


def is_numeric_date(value: str) -> bool:
    """Whether ``value`` is a valid all-numeric date: year-month-day, or day-month-year /
    month-day-year with a 2- or 4-digit year, one separator kind (``-``, ``.`` or ``/``)."""
    match = NUMERIC_DATE.fullmatch(value)
    return match is not None and _valid_date(match)


def _spelled_units(value: str) -> bool:
    """Whether a spelled code holds a capital and two digit words at least ("A-Q-seven-seven"; not
    "one, two, three, four", a count, nor "A, B, C, D", a list)."""
    units = re.split(r"-|,[ \t]", value)
    return any(len(u) == 1 and u.isupper() for u in units) and sum(len(u) > 1 for u in units) >= 2


def _ordinary_parts(value: str) -> bool:
    """Whether every part of a snake_case word is an ordinary word ("user_id", "password_reset",
    a CSV header's "full_name"): a key, a column or a value of a program, not someone's handle
    ("dana_k", "tay_jones")."""
    return all(ordinary_word(part) for part in value.split("_") if part)


class CodeDetector:
    def __init__(
        self,
        name: str,
        patterns: Dict[str, str],
        spans_key: str,
        label: str,
        validated: Optional[List[str]] = None,
        phone_regions: Optional[List[str]] = None,
    ) -> None:
        self.name = name
        self.patterns = {key: re.compile(value) for key, value in patterns.items()}
        self.spans_key = spans_key
        self.label = label
        names = list(VALIDATED_PATTERNS) if validated is None else list(validated)
        unknown = [n for n in names if n not in VALIDATED_PATTERNS]
        if unknown:
            raise ValueError(Errors.E040.format(names=unknown, known=", ".join(VALIDATED_PATTERNS)))
        self.validated = {n: re.compile(VALIDATED_PATTERNS[n]) for n in names}
        self._needs = {key: NEEDS[key] for key, value in patterns.items() if key in NEEDS and value == DEFAULT_PATTERNS.get(key)}
        self._needs.update((n, NEEDS[n]) for n in names if n in NEEDS)
        self.phone_regions = list(DEFAULT_PHONE_REGIONS if phone_regions is None else phone_regions)

    def _is_valid(self, key: str, value: str) -> bool:
        if key == "phone_number":
            return _valid_phone(value, self.phone_regions)
        check = VALIDATORS.get(key)
        return check is None or check(value)

    def _may_match(self, key: str, pattern: "re.Pattern[str]", text: str, lower: str) -> bool:
        needs = self._needs.get(key)
        return needs is None or any(need in (lower if pattern.flags & re.IGNORECASE else text) for need in needs)

    def find(self, text: str) -> List[Tuple[int, int, str]]:
        """(start, end, pattern name) of every match; ``numeric_date`` for all-numeric dates."""
        found = []
        dates = [m for m in NUMERIC_DATE_IN_TEXT.finditer(text) if _valid_date(m)]
        if dates:
            found.extend((m.start(), m.end(), "numeric_date") for m in dates)
            chars = list(text)
            for m in dates:  # blank them (same length: offsets stay) for the other patterns
                chars[m.start() : m.end()] = " " * (m.end() - m.start())
            text = "".join(chars)
        lower = text.lower()
        for key, pattern in self.patterns.items():
            if not self._may_match(key, pattern, text, lower):
                continue
            group = "id" if "id" in pattern.groupindex else 0
            for match in pattern.finditer(text):
                value = match.group()
                if key == "id_token" and NOT_IDS.match(value):
                    continue
                # a date the text pass skipped ("-2013-09-25": no date boundary before it)
                if key in ("phone", "application_number") and is_numeric_date(value):
                    found.append((match.start(), match.end(), "numeric_date"))
                    continue
                if key == "phone" and sum(c.isdigit() for c in value) < MIN_PHONE_DIGITS:
                    continue
                if key == "handle" and not _is_handle(value):
                    continue
                if key == "user_is" and ordinary_word(match.group(group)):
                    continue
                if key == "spelled_code" and not _spelled_units(value):
                    continue
                if key == "snake_handle" and _ordinary_parts(value):
                    continue
                if key == "name_value" and match.group("key").lower() == "name" and not match.group("id")[:1].isupper():
                    continue  # '"name":"checkout"': an event's name
                if key == "street_abbreviated" and all(ordinary_word(word) for word in match.group("name").split()):
                    continue
                found.append((*match.span(group), key))
        for key, pattern in self.validated.items():
            if not self._may_match(key, pattern, text, lower):
                continue
            match = pattern.search(text)
            while match is not None:
                if self._is_valid(key, match.group()):
                    start = match.start()
                    before = TAKES_IN_BEFORE.get(key)
                    taken = before.search(text, max(0, start - 70), start) if before else None
                    found.append((taken.start() if taken else start, match.end(), key))
                    match = pattern.search(text, match.end())
                elif key in RETRY_INSIDE:
                    match = pattern.search(text, _next_word(text, match.start(), match.end()))
                else:
                    match = pattern.search(text, match.end())
        return found

    def __call__(self, doc: Doc) -> Doc:
        spans = []
        for start, end, key in self.find(doc_text(doc)):
            label = KEY_LABELS.get(key, self.label)
            span = doc.char_span(start, end, label=label, alignment_mode="expand")
            if span is None:
                continue
            span._.risk_explain["detector"] = f"{self.name}:{key}"
            if key in self.validated or key in CONTEXT_VALIDATED:
                span._.risk_explain[VALIDATED] = label
            spans.append(span)
        add_pii_spans(doc, spans, self.spans_key)
        return doc


@Language.factory(
    "pii_codes",
    default_config={
        "patterns": DEFAULT_PATTERNS,
        "spans_key": "pii",
        "label": "CODE",
        "validated": list(VALIDATED_PATTERNS),
        "phone_regions": DEFAULT_PHONE_REGIONS,
    },
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_code_detector(
    nlp: Language,
    name: str,
    patterns: Dict[str, str],
    spans_key: str,
    label: str,
    validated: List[str],
    phone_regions: List[str],
) -> CodeDetector:
    """patterns (Dict[str, str]): name -> regular expression. label (str): the PII type
    written. validated (List[str]): the validated identifiers to find (names of
    ``VALIDATED_PATTERNS``; [] = none). phone_regions (List[str]): ISO regions whose
    national phone formats are tried for numbers without a country code."""
    register_extensions()
    return CodeDetector(name, patterns, spans_key, label, validated, phone_regions)
