"""The rules for display names and chat lines: readable text in any script, nothing
invisible in a name, one line in chat."""

from __future__ import annotations

import pytest
from text_samples import CHAT_ACCEPTED, CHAT_REFUSED, NAMES_ACCEPTED, NAMES_REFUSED

from protocol import messages as m
from protocol.codec import decode_client, encode
from protocol.text import chat_problem, name_problem, normal_name


@pytest.mark.parametrize("name", NAMES_ACCEPTED)
def test_names_people_write_are_accepted(name: str) -> None:
    """Names in any script, with accents either way, and emoji joined into one picture."""
    assert name_problem(name) is None
    assert decode_client(encode(m.Hello(name=name))) == m.Hello(name=name)


@pytest.mark.parametrize("name", NAMES_REFUSED)
def test_names_with_what_nobody_can_see_are_refused_with_the_reason(name: str) -> None:
    """Blank, invisible or piled-up characters and spaces at either end are refused, and
    the reason is words for the person who typed the name."""
    problem = name_problem(name)
    assert problem is not None
    assert problem.startswith("a name ")
    with pytest.raises(ValueError, match="field `name`: a name "):
        m.Hello(name=name)


@pytest.mark.parametrize("text", CHAT_ACCEPTED)
def test_chat_lines_people_write_are_accepted(text: str) -> None:
    """Joiners, direction marks and every kind of space are text; so are accents."""
    assert chat_problem(text) is None
    m.Chat(room="r-1", text=text)


@pytest.mark.parametrize("text", CHAT_REFUSED)
def test_chat_lines_that_are_blank_or_not_one_line_are_refused(text: str) -> None:
    """Line breaks, tabs, the controls that reorder text around them and blank lines."""
    problem = chat_problem(text)
    assert problem is not None
    assert problem.startswith("a chat line ")


def test_a_name_is_kept_in_nfc_and_judged_so() -> None:
    """A decomposed accent is composed, so "José" typed either way is one name; the
    length counts the kept form."""
    assert normal_name("Jose\u0301") == "José"
    assert name_problem("e\u0301" * 24) is None  # 48 code points typed, 24 kept
    assert name_problem("\u0958" * 13) == (  # NFC splits it
        "a name is at most 24 characters (emoji and accents may count as several)"
    )
