"""How the readers end and what they refuse: a file cut short warns, every
reader has its end line, a reader read to its end says so when iterated
again, and bad arguments raise the exception Python raises for them."""

import warnings

import pytest

import teeoracle
from conftest import CORPUS

A = CORPUS / "teehistorian/ddnet-20.1/A_join_move_leave.teehistorian"
F = CORPUS / "teehistorian/ddnet-20.1/F_crash_truncated.teehistorian"
UNKNOWN_ID = CORPUS / "teehistorian/malformed/unknown_message_id.teehistorian"


def test_truncated_warning_is_the_package_s_category():
    assert issubclass(teeoracle.TruncatedWarning, UserWarning)
    assert teeoracle.TruncatedWarning.__doc__


@pytest.mark.parametrize("how", ["records", "batches", "ticks"])
def test_a_truncated_file_warns_once_at_its_end_and_end_says_where(how):
    reader = teeoracle.ticks(F) if how == "ticks" else teeoracle.Teehistorian(F)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        items = list(reader.batches(100) if how == "batches" else reader)
    assert items
    [w] = caught
    assert w.category is teeoracle.TruncatedWarning
    assert str(w.message).startswith(f"{F}: truncated: no FINISH record")
    assert "byte 27206" in str(w.message)
    assert reader.end["end"] == {"end": "truncated", "offset": 27206, "partial": 0}
    assert reader.end["records"] == 3501
    assert reader.end["error"] is None


def test_a_truncated_file_under_warnings_as_errors_gives_its_records_first():
    th = teeoracle.Teehistorian(F)
    with warnings.catch_warnings():
        warnings.simplefilter("error", teeoracle.TruncatedWarning)
        batches = th.batches(10**6)
        assert len(next(batches)) == 3501
        with pytest.raises(teeoracle.TruncatedWarning):
            next(batches)
    assert th.end["end"]["end"] == "truncated"
    t = teeoracle.ticks(F)
    ticks = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", teeoracle.TruncatedWarning)
        with pytest.raises(teeoracle.TruncatedWarning):
            for tick in t:
                ticks.append(tick)
    with pytest.warns(teeoracle.TruncatedWarning):
        assert ticks == list(teeoracle.ticks(F))


@pytest.mark.parametrize("how", ["records", "batches", "ticks"])
def test_a_finished_file_does_not_warn(how):
    reader = teeoracle.ticks(A) if how == "ticks" else teeoracle.Teehistorian(A)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(reader.batches() if how == "batches" else reader)
    assert reader.end["end"]["end"] == "finished"


def test_ticks_has_end_like_the_records():
    t = teeoracle.ticks(A)
    assert t.end is None
    ticks = list(t)
    th = teeoracle.Teehistorian(A)
    records = list(th)
    assert t.end == th.end
    assert t.end["records"] == len(records) == 970
    assert ticks[-1]["tick"] == 932


def test_ticks_end_carries_the_error_that_stopped_it():
    t = teeoracle.ticks(UNKNOWN_ID)
    with pytest.raises(teeoracle.DecodeError):
        list(t)
    assert t.end["error"]["offset"] == 3194
    assert t.end["end"] is None


@pytest.mark.parametrize("how", ["records", "batches", "ticks"])
def test_a_reader_read_to_its_end_refuses_a_second_iteration(how):
    reader = teeoracle.ticks(A) if how == "ticks" else teeoracle.Teehistorian(A)
    again = (lambda: reader.batches()) if how == "batches" else (lambda: iter(reader))
    assert list(again())
    with pytest.raises(RuntimeError, match="read to its end"):
        again()
    with pytest.raises(RuntimeError, match="open it again"):
        for _ in reader:
            pass


def test_a_reader_stopped_by_an_error_refuses_a_second_iteration():
    th = teeoracle.Teehistorian(UNKNOWN_ID)
    with pytest.raises(teeoracle.DecodeError):
        list(th)
    with pytest.raises(RuntimeError):
        list(th)


def test_a_reader_read_halfway_goes_on_where_it_is():
    th = teeoracle.Teehistorian(A)
    first = [next(th) for _ in range(10)]
    rest = list(th)
    assert len(first) + len(rest) == 970
    assert first + rest == list(teeoracle.Teehistorian(A))


def test_missing_paths_raise_file_not_found_everywhere():
    missing = CORPUS / "no such file"
    for call in (teeoracle.Teehistorian, teeoracle.ticks, teeoracle.replay, teeoracle.check,
                 lambda p: teeoracle.check([A, p])):
        with pytest.raises(FileNotFoundError) as info:
            call(missing)
        assert info.value.filename == str(missing)


@pytest.mark.parametrize("bad", [None, 123, 1.5, ["a"]])
def test_a_source_that_is_no_path_nor_bytes_is_a_type_error(bad):
    for call in (teeoracle.Teehistorian, teeoracle.ticks, teeoracle.replay):
        with pytest.raises(TypeError, match=f"got {type(bad).__name__}"):
            call(bad)
    if not isinstance(bad, list):  # a list is paths to check
        with pytest.raises(TypeError):
            teeoracle.check(bad)


@pytest.mark.parametrize("size", [0, -1])
def test_batches_of_fewer_than_one_record_are_refused(size):
    th = teeoracle.Teehistorian(A)
    with pytest.raises(ValueError, match=f"size={size}: must be at least 1"):
        th.batches(size)
    with pytest.raises(ValueError, match="size"):
        th.next_batch(size)
    # Nothing was read.
    assert th.records == 0
    assert len(list(th)) == 970


def test_replay_at_a_negative_tick_is_refused():
    with pytest.raises(ValueError, match="at=-5"):
        teeoracle.replay(A, at=-5)
    assert teeoracle.replay(A, at=0)["tick"] == 0


A_DEMO = CORPUS / "demo/ddnet-20.1/A_join_move_leave.demo"
CTF1_DEMO = CORPUS / "demo/ddnet-20.1/E_map_change.2_ctf1.demo"


def test_simulate_on_another_map_warns_that_the_checksums_differ():
    with pytest.warns(teeoracle.MapMismatchWarning) as caught:
        report = teeoracle.simulate(A, CTF1_DEMO)
    [w] = caught
    assert issubclass(teeoracle.MapMismatchWarning, UserWarning)
    assert 'names the map "dm1" of SHA-256 ' in str(w.message)
    assert f"but {CTF1_DEMO}'s map has SHA-256 " in str(w.message)
    assert report["matched"] < report["player_ticks"]
    # Its own map: no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert teeoracle.simulate(A, A_DEMO)["matched"] == 851
