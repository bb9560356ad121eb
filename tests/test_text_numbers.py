"""Dates, ordinals and spans of years read as a careful reader reads them (issue 31)."""

from __future__ import annotations

import pytest

from ragmeter.text.numbers import find_numbers, relation


def read(text: str) -> list[tuple[str, str]]:
    return [(m.value, text[m.start : m.end]) for m in find_numbers(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # ordinal days, day first and month first, month abbreviations, word ordinals
        ("on the 14th of March 2021", [("2021-03-14", "14th of March 2021")]),
        ("on 14 March 2021", [("2021-03-14", "14 March 2021")]),
        ("on March 14th, 2021", [("2021-03-14", "March 14th, 2021")]),
        (
            "on Sept. 3, 2020 and 3 Sept 2020",
            [("2020-09-03", "Sept. 3, 2020"), ("2020-09-03", "3 Sept 2020")],
        ),
        ("on the first of May", [("05-01", "first of May")]),
        ("due on the 14th.", [("14th", "14th")]),
        ("in March 2021", [("2021-03", "March 2021")]),
        # an ordinal that is not a date; a word that is not a month
        ("the 14th president", [("14th", "14th")]),
        ("10 may be enough, you may first ask", [("10", "10")]),
        # decades and centuries, with their early, mid and late parts
        ("in the 1910s", [("1910-1919", "1910s")]),
        ("in the early 1900s", [("1900-1939", "early 1900s")]),
        ("in the late '90s", [("1996-1999", "late '90s")]),
        ("in the 19th century", [("1800-1900", "19th century")]),
        ("the twenty-first century", [("2000-2100", "twenty-first century")]),
        # not decades: hundreds of, an age
        ("1000s of users, in his 90s", []),
        ("上世纪九十年代", [("1990-1999", "上世纪九十年代")]),
        ("20世纪初", [("1900-1939", "20世纪初")]),
        ("1990年代", [("1990-1999", "1990年代")]),
        ("第十四届", [("14th", "第十四")]),
        ("3月14日，三月十四日", [("03-14", "3月14日"), ("03-14", "三月十四日")]),
        ("2021年开放", [("2021", "2021年")]),
        ("3个月，7日内", [("3", "3"), ("7", "7")]),
    ],
)
def test_dates_ordinals_and_spans_are_read_whole(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert read(text) == expected


def mention(text: str):  # type: ignore[no-untyped-def]
    (found,) = find_numbers(text)
    return found


@pytest.mark.parametrize(
    ("claim", "context", "expected"),
    [
        ("the 14th of March 2021", "March 14, 2021", "same"),
        ("in 2021", "March 14, 2021", "within"),
        ("on the 14th.", "March 14, 2021", "within"),
        ("March 14, 2021", "on March 14", "consistent"),
        ("on the 15th.", "March 14, 2021", "conflict"),
        ("the 1910s", "in 1914", "within"),
        ("in 1914", "the 1910s", "consistent"),
        ("the 1920s", "in 1914", "conflict"),
        ("the 19th century", "March 14, 1914", "conflict"),
        ("上世纪九十年代", "1994年", "within"),
        ("八十年代", "1994年", "conflict"),
        ("第十五", "第十四", "conflict"),
        ("30 days", "14 days", "conflict"),
        # a full date beside the bare year of something else is no rival
        ("born on July 5, 1984", "a 2013 series", None),
        ("30 days", "14%", None),
        ("the 1910s", "14 days", None),
    ],
)
def test_relation(claim: str, context: str, expected: str | None) -> None:
    assert relation(mention(claim), mention(context)) == expected
