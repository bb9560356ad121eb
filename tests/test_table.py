from factories import case, run
from ragmeter.results._table import rows


def test_a_rejudged_case_has_the_score_it_counts_with():
    rejudged = run(
        [
            case("a", {"faithfulness": 0.9}, repeats={"faithfulness": [0.9, 0.3, 0.3]}),
            case("b", {"faithfulness": "judge error"}, repeats={"faithfulness": [None, 1, 1]}),
            case("c", {"faithfulness": "judge error"}),
        ]
    )
    table = rows(rejudged.cases, ("faithfulness",))
    assert [round(row["faithfulness"], 9) for row in table[:2]] == [0.5, 1.0]
    assert [row["faithfulness_unscored_reason"] for row in table] == [None, None, "judge error"]
    assert table[2]["faithfulness"] is None


def test_csv_text_cells_that_a_spreadsheet_would_run_start_with_a_quote():
    import csv
    import io

    from ragmeter.results._table import to_csv_text

    hostile = ['=HYPERLINK("http://x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tx", "\rx"]
    result = run(
        [case(f"c{i}", {"faithfulness": 0.5}, question=q) for i, q in enumerate(hostile)]
        + [case("-7", {"faithfulness": 0.25}, question="=1+1 问题"), case("ok", {}, question="-")]
    )
    table = list(csv.DictReader(io.StringIO(to_csv_text(result.cases, result.summary.metrics))))
    assert [row["question"] for row in table[: len(hostile)]] == ["'" + q for q in hostile]
    assert table[-2]["question"] == "'=1+1 问题"
    assert table[-2]["id"] == "-7"  # a plain number runs nothing: left as it is
    assert table[-1]["question"] == "'-"
    assert table[0]["faithfulness"] == "0.5"


def test_csv_keeps_negative_numbers_and_plain_text_as_they_are():
    from ragmeter.results._table import neutralized

    assert [neutralized(t) for t in ("-0.5", "+3", "-1e-3", "1-2", "a=b", "退款")] == [
        "-0.5",
        "+3",
        "-1e-3",
        "1-2",
        "a=b",
        "退款",
    ]
