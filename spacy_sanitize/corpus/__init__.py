from .tab import (  # noqa: F401
    Mention,
    TabDocument,
    TabFormatError,
    create_tab_corpus_reader,
    docs_to_tab,
    load_tab,
    masked_offsets,
    parse_tab,
    read_submission,
    read_tab,
    tab_to_docs,
    write_submission,
    write_tab,
)
from .paths import shared_data_dir, wiki_dev_path  # noqa: F401
