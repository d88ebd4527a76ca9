"""One meaning per suffix, in every command (ffn_calc.quantities).

B alone is a billion wherever it is taken (a count: `--where total_params<=7B`, the answer
0.1342B); a size in bytes takes KB ... TB and KiB ... TiB and refuses B alone (bytes, or a
billion bytes?) and k, M, G, T alone (GB or GiB?), in `--gpu-memory` as in `--where` on a byte
metric; % is taken only by a share, and a share outside 0 to 1 is refused, never guessed.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import run

from ffn_calc.errors import UsageError
from ffn_calc.quantities import parse_bytes, read_number
from ffn_calc.sweeps.metrics import METRICS
from ffn_calc.sweeps.run import parse_filter


def bound(expr: str) -> Fraction:
    return parse_filter(expr).bound


# --- counts ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("7B", 7 * 10**9), ("7G", 7 * 10**9), ("7e9", 7 * 10**9), ("7 B", 7 * 10**9),
        ("7_000_000_000", 7 * 10**9), ("7,000,000,000", 7 * 10**9), ("6.5G", 6_500_000_000),
        ("124.4M", 124_400_000), ("4k", 4000), ("4K", 4000), ("1.2T", 1_200_000_000_000),
        ("1/3", Fraction(1, 3)), ("-5", -5), (".5k", 500), ("2.", 2),
    ],
)  # fmt: skip
def test_a_count_takes_k_m_g_b_t(text: str, value: Fraction) -> None:
    assert bound(f"total_params<={text}") == value
    assert bound(f"forward_flops@2048<{text}") == value


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("7GB", "GB does not fit total_params, a count"),
        ("7GiB", "GiB does not fit total_params, a count"),
        ("50%", "% does not fit total_params, a count"),
        ("7b", "'7b' is not a number; total_params is a count"),
        ("7m", "'7m' is not a number"),
        ("1e", "'1e' is not a number"),
        ("1/0", "'1/0' is not a number"),
        ("1.5/2", "'1.5/2' is not a number"),
    ],
)
def test_a_count_refuses_bytes_percent_and_unknown_suffixes(text: str, message: str) -> None:
    with pytest.raises(UsageError) as e:
        parse_filter(f"total_params<={text}")
    assert message in str(e.value)
    r = run("sweep", "-p", "gpt2-small", "-V", "d_ff=1,2", "-w", f"total_params<={text}")
    assert r.exit_code == 2 and r.stdout == "" and message in r.stderr, r.stderr


# --- bytes ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("14GB", 14 * 10**9), ("14gb", 14 * 10**9), ("14 GB", 14 * 10**9),
        ("13GiB", 13 * 2**30), ("1.5TB", 1_500_000_000_000), ("512KiB", 512 * 1024),
        ("250MB", 250 * 10**6), ("2TiB", 2 * 2**40), ("85899345920", 85_899_345_920),
    ],
)  # fmt: skip
def test_a_size_takes_byte_units_the_same_in_every_command(text: str, value: int) -> None:
    assert bound(f"weights_bytes<={text}") == value
    assert bound(f"kv_bytes@1024<={text}") == value
    assert parse_bytes(text) == value


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("80B", "B alone is ambiguous for a size in bytes"),
        ("80G", "G alone is ambiguous for a size in bytes (GB is 10^9 bytes, GiB 2^30)"),
        ("80k", "k alone is ambiguous for a size in bytes (KB is 10^3 bytes, KiB 2^10)"),
        ("80M", "M alone is ambiguous"),
        ("1.5T", "T alone is ambiguous"),
        ("80%", "% does not fit"),
        ("80XB", "'80XB' is not a number"),
    ],
)
def test_a_size_refuses_b_and_bare_multipliers(text: str, message: str) -> None:
    with pytest.raises(UsageError) as e:
        parse_filter(f"weights_bytes<={text}")
    assert message in str(e.value)
    with pytest.raises(UsageError) as e:
        parse_bytes(text)
    assert message in str(e.value) and str(e.value).startswith("--gpu-memory")
    r = run("memory", "-p", "gpt2-small", "--gpu-memory", text)
    assert r.exit_code == 2 and r.stdout == "" and message in r.stderr, r.stderr


def test_gpu_memory_keeps_its_range() -> None:
    for text in ("0GB", "0", "-1GB", "2000000000TB"):
        with pytest.raises(UsageError, match="between 1 byte and 2"):
            parse_bytes(text)


# --- shares ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("60%", Fraction(3, 5)), ("0.6", Fraction(3, 5)), ("3/5", Fraction(3, 5)), ("0", 0),
     ("1", 1), ("100%", 1), ("45.5 %", Fraction(455, 1000))],
)  # fmt: skip
def test_a_share_is_a_fraction_or_a_percentage(text: str, value: Fraction) -> None:
    assert bound(f"ffn_share>={text}") == value


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("60", "'60' is outside 0 to 1; ffn_share is a share"),
        ("1.5", "outside 0 to 1"),
        ("150%", "outside 0 to 1"),
        ("-0.1", "outside 0 to 1"),
        ("6k", "k does not fit ffn_share, a share"),
        ("0.6B", "B does not fit ffn_share"),
    ],
)
def test_a_share_above_one_is_refused_not_guessed(text: str, message: str) -> None:
    with pytest.raises(UsageError) as e:
        parse_filter(f"ffn_share>{text}")
    assert message in str(e.value)


# --- every metric has one unit, and answers read B as the counts do ----------------------------


def test_every_metric_says_what_it_measures() -> None:
    for name, kind in METRICS.items():
        expected = "bytes" if name.endswith("_bytes") else "share" if "share" in name else "count"
        assert kind.unit == expected, name


def test_an_answer_reads_b_as_a_billion_like_where() -> None:
    # ffn-4096: an FFN of d_model 4,096 and d_ff 16,384 without biases holds 2 x 4,096 x
    # 16,384 = 134,217,728 parameters (W1 and W2; `exercise solve ffn-4096`): 0.1342B and
    # 0.1342G are both right (within half a unit of the last digit), 0.1343B both wrong.
    assert read_number("0.1342B", "count", "x", "y") == read_number("0.1342G", "count", "x", "y")
    for given, code in (("0.1342B", 0), ("0.1342G", 0), ("0.1343B", 1), ("0.1343G", 1)):
        r = run("exercise", "check", "ffn-4096", given)
        assert r.exit_code == code, (given, r.stdout, r.stderr)
    # A byte unit is no count: refused as unreadable, never read as a billion.
    r = run("exercise", "check", "ffn-4096", "0.1342GB")
    assert r.exit_code == 2 and "cannot read the answer" in r.stderr
