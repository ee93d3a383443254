#!/usr/bin/env python3
"""Reads a TensorBoard event file that tensorboard_replay writes from a run's protocol events
and checks it without any of the engine's code: its own TFRecord framing and CRC-32C, classes
that protoc generates from our .proto for Python, and expected values computed here from the
events it fed. Exit 0: all good; 1: a check failed; 77: python3-protobuf is missing (skip)."""

import argparse
import json
import math
import pathlib
import struct
import subprocess
import sys
import tempfile

GIB = 1024.0**3


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def masked(crc: int) -> int:
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(path: pathlib.Path):
    data = path.read_bytes()
    at = 0
    while at < len(data):
        assert len(data) - at >= 12, f"header cut short at byte {at}"
        (length,) = struct.unpack_from("<Q", data, at)
        (length_crc,) = struct.unpack_from("<I", data, at + 8)
        assert length_crc == masked(crc32c(data[at : at + 8])), f"length CRC at byte {at}"
        assert len(data) - at - 12 >= length + 4, f"record cut short at byte {at}"
        payload = data[at + 12 : at + 12 + length]
        (data_crc,) = struct.unpack_from("<I", data, at + 12 + length)
        assert data_crc == masked(crc32c(payload)), f"data CRC at byte {at}"
        yield payload
        at += 12 + length + 4


def float32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


def run_events(video: str):
    def mem(gib):
        return [
            {"rank": 0, "allocated": gib * GIB, "reserved": 2 * GIB, "peak": 3 * GIB},
            {"rank": 1, "allocated": gib * GIB / 2, "reserved": 2 * GIB, "peak": 1.5 * GIB},
        ]

    def step(n, loss):
        return {"v": 1, "type": "step", "step": n, "epoch": 0, "loss": loss, "lr": 2e-4 / n,
                "grad_norm": 0.5 * n, "step_time_s": 0.75 * n, "samples_per_s": 4.0,
                "tokens_per_s": 512.0 * n, "mem": mem(n)}

    return [
        {"v": 1, "type": "hello", "protocol": 1},
        {"v": 1, "type": "memory", "phase": "before_training", "mem": mem(1)},
        step(11, 0.9), step(12, 0.7), step(13, None), step(14, 0.8),
        {"v": 1, "type": "validation", "step": 14, "prompt_index": 1, "prompt": "a cat",
         "video": video, "seconds": 2.0},
        {"v": 1, "type": "done", "status": "failed", "summary": {"code": "nan"}},
    ]


def expected_scalars(events):
    expected = {}
    accumulator, count, weight = 0.0, 0, 0.6
    last_step = 0
    for event in events:
        if event["type"] == "step":
            n = event["step"]
            last_step = n
            if event["loss"] is not None:
                expected[("loss/raw", n)] = event["loss"]
                accumulator = accumulator * weight + (1 - weight) * event["loss"]
                count += 1
                expected[("loss/smoothed", n)] = accumulator / (1 - weight**count)
            for tag, field in [("learning_rate", "lr"), ("grad_norm", "grad_norm"),
                               ("step_time_s", "step_time_s"), ("tokens_per_s", "tokens_per_s"),
                               ("samples_per_s", "samples_per_s")]:
                expected[(tag, n)] = event[field]
            prefix = "memory"
        elif event["type"] == "memory":
            n = last_step
            prefix = "memory_phase/" + event["phase"]
        else:
            continue
        for rank in event["mem"]:
            for field in ("allocated", "reserved", "peak"):
                tag = f"{prefix}/rank{rank['rank']}/{field}_gib"
                expected[(tag, n)] = rank[field] / GIB
    return expected


def check(event_file: pathlib.Path, events, job, pb, hp):
    parsed = []
    for payload in records(event_file):
        event = pb.Event()
        event.ParseFromString(payload)
        assert event.SerializeToString() == payload, "a record holds fields we do not know"
        parsed.append(event)
    assert parsed[0].file_version == "brain.Event:2", parsed[0]

    scalars, images, session_logs, plugin = {}, [], [], {}
    for event in parsed[1:]:
        if event.HasField("session_log"):
            session_logs.append((event.step, event.session_log.status))
        for value in event.summary.value:
            kind = value.WhichOneof("value")
            if kind == "simple_value":
                key = (value.tag, event.step)
                assert key not in scalars, f"{key} written twice"
                scalars[key] = value.simple_value
            elif kind == "image":
                images.append((event.step, value))
            elif kind == "tensor":
                assert value.metadata.plugin_data.plugin_name == "hparams", value
                data = hp.HParamsPluginData()
                data.ParseFromString(value.metadata.plugin_data.content)
                assert data.version == 0
                plugin[value.tag] = data

    expected = expected_scalars(events)
    assert set(scalars) == set(expected), set(scalars) ^ set(expected)
    for key, value in expected.items():
        assert math.isclose(scalars[key], float32(value), rel_tol=1e-6), (key, scalars[key], value)

    assert session_logs == [(11, pb.SessionLog.START)], session_logs

    start = plugin["_hparams_/session_start_info"].session_start_info
    hparams = {name: getattr(value, value.WhichOneof("kind")) for name, value in start.hparams.items()}
    assert hparams == {"optimizer.lr": 3e-4, "optimizer.name": "came", "lora.targets": '["to_q"]',
                       "precision": "fp32", "random_flip": False}, hparams
    end = plugin["_hparams_/session_end_info"].session_end_info
    assert end.status == hp.STATUS_FAILURE, end

    assert len(images) == 1, images
    step, value = images[0]
    assert (step, value.tag) == (14, "validation/prompt_1"), (step, value.tag)
    assert value.metadata.summary_description == "a cat"
    png = value.image.encoded_image_string
    assert png[:8] == b"\x89PNG\r\n\x1a\n", png[:8]
    width, height = struct.unpack(">II", png[16:24])  # IHDR, the first chunk
    assert (value.image.width, value.image.height) == (width, height) == (3 * 48, 32), (width, height)
    assert value.image.colorspace == 3
    return len(parsed)


def main():
    parser = argparse.ArgumentParser()
    for option in ("--protoc", "--proto-dir", "--include-dir", "--replay"):
        parser.add_argument(option, required=True)
    args = parser.parse_args()
    try:
        import google.protobuf  # noqa: F401
    except ImportError:
        print("SKIP: python3-protobuf is not installed", file=sys.stderr)
        return 77

    with tempfile.TemporaryDirectory() as temp:
        work = pathlib.Path(temp)
        subprocess.run([args.protoc, f"-I{args.proto_dir}", f"-I{args.include_dir}",
                        f"--python_out={work}", "tensorboard_event.proto",
                        "tensorboard_hparams.proto"], check=True, cwd=args.proto_dir)
        sys.path.insert(0, str(work))
        import tensorboard_event_pb2 as pb
        import tensorboard_hparams_pb2 as hp

        job = {"v": 1, "optimizer": {"lr": 3e-4, "name": "came"}, "lora": {"targets": ["to_q"]},
               "precision": "fp32", "random_flip": False, "trigger_word": None}
        video = work / "validation.mp4"
        events = run_events(str(video))
        (work / "job.json").write_text(json.dumps(job))
        (work / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
        out = subprocess.run([args.replay, str(work / "job.json"), str(work / "events.jsonl"),
                              str(work / "tensorboard"), "--test-video", str(video)],
                             check=True, capture_output=True, text=True)
        event_file = pathlib.Path(out.stdout.strip())
        assert event_file.parent == work / "tensorboard", event_file
        count = check(event_file, events, job, pb, hp)
        print(f"{event_file.name}: {count} records, every CRC and value as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
