from factories import case, run
from ragmeter.table import rows


def test_a_rejudged_case_has_the_score_it_counts_with():
    table = rows(
        run(
            [
                case("a", {"faithfulness": 0.9}, repeats={"faithfulness": [0.9, 0.3, 0.3]}),
                case("b", {"faithfulness": "judge error"}, repeats={"faithfulness": [None, 1, 1]}),
                case("c", {"faithfulness": "judge error"}),
            ]
        )
    )
    assert [round(row["faithfulness"], 9) for row in table[:2]] == [0.5, 1.0]
    assert [row["faithfulness_unscored_reason"] for row in table] == [None, None, "judge error"]
    assert table[2]["faithfulness"] is None
