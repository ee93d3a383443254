#!/usr/bin/env python3
"""Writes the seed corpora in corpus/<harness>/: small hand-made inputs, valid ones and ones
broken in one way each. Run it again after changing a seed here; regression seeds for
findings are plain files added beside these (named after the finding) and kept as they are."""
import json
import pathlib
import struct

HERE = pathlib.Path(__file__).resolve().parent
SEPARATOR = b"\n=====\n"  # fuzz_support.h, kPartSeparator


def safetensors(tensors, metadata=None, data=None):
    """tensors: [(name, dtype, shape, bytes)] laid out in order."""
    header, blob, offset = {}, b"", 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, payload in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(payload)]}
        blob += payload
        offset += len(payload)
    text = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<Q", len(text)) + text + (blob if data is None else data)


def raw(header_text, data=b""):
    return struct.pack("<Q", len(header_text)) + header_text + data


def write(harness, name, content):
    folder = HERE / "corpus" / harness
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(content if isinstance(content, bytes) else content.encode())


def safetensors_seeds():
    two = safetensors([("w", "F32", [2], struct.pack("<2f", 1.0, -2.0)),
                       ("ids", "U8", [3], b"\x01\x02\x03")], {"format": "pt"})
    write("safetensors", "valid_two_tensors", two)
    write("safetensors", "valid_every_dtype", safetensors(
        [("b", "BOOL", [1], b"\x01"), ("i8", "I8", [1], b"\xff"), ("i16", "I16", [1], b"\0\1"),
         ("i32", "I32", [1], b"\0" * 4), ("i64", "I64", [1], b"\0" * 8),
         ("f16", "F16", [1], b"\0<"), ("bf16", "BF16", [1], b"\x80?"),
         ("f64", "F64", [1], b"\0" * 8)]))
    write("safetensors", "valid_scalar_and_empty", safetensors(
        [("scalar", "F32", [], struct.pack("<f", 1.0)), ("empty", "F32", [0, 4], b"")]))
    write("safetensors", "bad_truncated", two[:-2])
    write("safetensors", "bad_overlap", raw(
        b'{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},'
        b'"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}', b"xyz"))
    write("safetensors", "bad_size_overflows", raw(
        b'{"a":{"dtype":"F64","shape":[4611686018427387904,4611686018427387904],'
        b'"data_offsets":[0,8]}}', b"x" * 8))
    # Issue #20: no byte, but an element count past int64.
    write("safetensors", "bad_empty_shape_overflows", raw(
        b'{"a":{"dtype":"U8","shape":[4294967296,2147483648,0],"data_offsets":[0,0]}}'))
    write("safetensors", "bad_header_length", struct.pack("<Q", 1 << 40) + b"{}")
    write("safetensors", "bad_json", raw(b'{"a":{"dtype":"F32",'))
    write("safetensors", "bad_duplicate_name", raw(
        b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
        b'"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"x"))
    write("safetensors", "bad_unknown_dtype", raw(
        b'{"a":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}}', b"x"))


def index_seeds():
    shard1 = safetensors([("a", "F32", [1], struct.pack("<f", 1.0))])
    shard2 = safetensors([("b", "U8", [2], b"\1\2")], {"format": "pt"})

    def index(weight_map):
        return json.dumps({"metadata": {"total_size": 6}, "weight_map": weight_map}).encode()

    both = {"a": "s1.safetensors", "b": "s2.safetensors"}
    write("safetensors_index", "valid_two_shards",
          index(both) + SEPARATOR + shard1 + SEPARATOR + shard2)
    write("safetensors_index", "valid_one_shard",
          index({"a": "s1.safetensors"}) + SEPARATOR + shard1)
    write("safetensors_index", "bad_missing_shard",
          index({"a": "s1.safetensors", "b": "s3.safetensors"}) + SEPARATOR + shard1)
    write("safetensors_index", "bad_disagrees",
          index({"a": "s2.safetensors", "b": "s1.safetensors"}) + SEPARATOR + shard1 +
          SEPARATOR + shard2)
    write("safetensors_index", "bad_tensor_in_two_shards",
          index({"a": "s1.safetensors"}) + SEPARATOR + shard1 + SEPARATOR + shard1)
    write("safetensors_index", "bad_escaping_name",
          index({"a": "../s1.safetensors"}) + SEPARATOR + shard1)
    write("safetensors_index", "bad_no_weight_map", b'{"metadata": {}}' + SEPARATOR + shard1)
    write("safetensors_index", "bad_broken_shard",
          index({"a": "s1.safetensors"}) + SEPARATOR + shard1[:-1])


def manifest_seeds():
    line = {"v": 1, "path": "clips/a.mp4", "caption": "a cat", "trim_in": 0, "trim_out": 49,
            "image": False, "hash": "sha256:" + "0123456789abcdef" * 4, "width": 720,
            "height": 480, "frames": 120, "fps": 24.0, "condition_frame": 12}
    lines = [json.dumps(line, ensure_ascii=False),
             json.dumps({"v": 1, "path": "b.png", "caption": "ünïcode ✓ 猫", "image": True},
                        ensure_ascii=False),
             "", json.dumps({"v": 1, "path": "c.mp4", "caption": "", "trim_out": None})]
    write("dataset_manifest", "valid", "\n".join(lines) + "\n")
    write("dataset_manifest", "bad_lines", "\n".join([
        '{"v":2,"path":"a.mp4","caption":"newer"}',
        '{"v":1,"path":"","caption":"no path"}',
        '{"v":1,"path":"a.mp4","caption":"x","trim_in":10,"trim_out":5}',
        '{"v":1,"path":"a.mp4","caption":"x","hash":"sha256:XYZ"}',
        '{"v":1,"path":"a.mp4","caption":3,"fps":-1}',
        '{"v":1,"path":"a.mp4","caption":"x","trim_in":-1,"frames":1e300}',
        '{"v":1,"path":"a.mp4","caption":"x","condition_frame":18446744073709551615}',
        '[1, 2]', '{"v":1,"path":"a.mp4",', 'not json']) + "\r\n")
    write("dataset_manifest", "bad_bytes", b'{"v":1,"path":"\xff\xfe.mp4","caption":"x"}\n\0\n')


def job_seeds():
    job = {"v": 1, "model": "models/tiny", "mode": "lora", "task": "t2v",
           "dataset": {"manifest": "dataset.jsonl", "resolution_buckets": [[480, 720]],
                       "frame_buckets": [49], "resize_mode": "center_crop"},
           "lora": {"rank": 16, "alpha": 16, "targets": ["to_q", "to_k"]},
           "optimizer": {"name": "adamw", "lr": 1e-4}, "lr_schedule": {"name": "cosine",
           "warmup_steps": 10}, "max_steps": 60, "batch_size": 1, "precision": "fp32",
           "checkpoints": {"every_steps": 30, "keep": 2},
           "validation": {"every_steps": 30, "prompts": ["a red ball"], "steps": 4},
           "parallel": {"plan": "zero2", "bucket_mb": 1}, "device": "cpu"}
    write("job_file", "valid_lora", json.dumps(job, indent=2))
    write("job_file", "valid_empty", "{}")
    write("job_file", "valid_i2v_full", json.dumps(
        {"model": "m", "mode": "full", "task": "i2v", "optimizer": {"name": "came",
         "beta3": 0.9999}, "validation": {"prompts": ["p"], "images": ["a.png"]},
         "epochs": 2, "max_steps": 0, "parallel": {"plan": "hybrid", "sp_size": 2}}))
    write("job_file", "bad_types", '{"v": 1, "max_steps": "ten", "lora": [], "seed": -1}')
    write("job_file", "bad_values",
          '{"optimizer": {"lr": -1, "name": "sgd"}, "dataset": {"resolution_buckets": [[1]]},'
          ' "misspelt": true, "batch_size": 1e300}')
    write("job_file", "bad_version", '{"v": 99}')
    write("job_file", "bad_json", '{"model": "m",')
    # Issue 39: the table of limits. Each at or just past a bound, a null, a NUL.
    write("job_file", "valid_at_the_limits", json.dumps(
        {"batch_size": 1024, "max_steps": 100000000, "gradient_accumulation": 4096,
         "seed": 9223372036854775807, "device": "cuda:127", "checkpointed_blocks": None,
         "optimizer": {"beta3": None}, "lora": {"rank": 8192},
         "validation": {"prompts": ["p"] * 64, "frames": 1025, "height": 4096, "width": 4096,
                        "guidance_2": None},
         "flow_matching": {"shift": None},
         "parallel": {"plan": "hybrid", "sp_size": 1024, "tp_size": 1, "pp_size": 1024}}))
    write("job_file", "bad_past_the_limits",
          '{"batch_size": 4611686018427387904, "max_steps": 9223372036854775808,'
          ' "gradient_accumulation": 1e19, "validation": {"frames": 1000000001,'
          ' "height": 65536, "width": 65536}, "epochs": -9223372036854775809}')
    write("job_file", "bad_null", '{"max_steps": null, "dataset": null, "model": null}')
    write("job_file", "bad_nul_in_path",
          '{"model": "models/tiny\\u0000.txt", "dataset": {"manifest": "a\\u0000b"}}')
    write("job_file", "bad_nul_after", b'{"max_steps": 5}\0garbage')
    write("job_file", "bad_trailing_value", '{"max_steps": 5}{}')
    write("job_file", "bad_long_name", json.dumps({"model": "m/" + "a" * 300 + "/x"}))
    write("job_file", "bad_many_prompts", json.dumps({"validation": {"prompts": ["a"] * 65}}))
    write("job_file", "bad_device_index", '{"device": "cuda:99999999999999999999"}')


def sweep_seeds():
    write("sweep_grid", "valid", json.dumps(
        {"name": "lr-by-rank", "axes": {"optimizer.lr": [1e-4, 3e-4], "lora.rank": [32, 64]}}))
    write("sweep_grid", "valid_strings", json.dumps(
        {"axes": {"lr_schedule.name": ["constant", "cosine"], "max_steps": [10],
                  "optimizer.weight_decay": [0, 0.01, 2.5e-5]}}))
    write("sweep_grid", "bad_unknown_field", json.dumps({"axes": {"optimizer.momentum": [1]}}))
    write("sweep_grid", "bad_value", json.dumps({"axes": {"lora.rank": [-3, "x"]}}))
    write("sweep_grid", "bad_too_many", json.dumps(
        {"axes": {"optimizer.lr": list(range(1, 20)), "lora.rank": list(range(1, 20))}}))
    write("sweep_grid", "bad_empty", json.dumps({"axes": {"optimizer.lr": []}}))
    write("sweep_grid", "bad_not_object", "[1, 2, 3]")
    # Issue 39: the grid's own fields have limits.
    write("sweep_grid", "valid_versioned", json.dumps(
        {"v": 1, "name": "n" * 64, "axes": {"flow_matching.shift": [3.0, None],
                                             "trigger_word": ["w" * 256]}}))
    write("sweep_grid", "bad_newer_version", json.dumps({"v": 2, "axes": {"max_steps": [1]}}))
    write("sweep_grid", "bad_extra_field", json.dumps({"runs": 3, "axes": {"max_steps": [1]}}))
    write("sweep_grid", "bad_null_name", json.dumps({"name": None, "axes": {"max_steps": [1]}}))
    write("sweep_grid", "bad_long_name", json.dumps({"name": "n" * 65, "axes": {"seed": [1]}}))
    write("sweep_grid", "bad_null_value", json.dumps({"axes": {"max_steps": [1, None]}}))
    write("sweep_grid", "bad_too_many_axes",
          json.dumps({"axes": {f: [1] for f in ["max_steps", "epochs", "seed", "batch_size",
                                                "lora.rank", "lora.alpha", "optimizer.lr",
                                                "optimizer.eps", "optimizer.beta1",
                                                "optimizer.beta2", "optimizer.weight_decay",
                                                "max_grad_norm", "gradient_accumulation",
                                                "checkpoints.keep", "checkpoints.every_steps",
                                                "validation.steps", "lr_schedule.cycles"]}}))


def protocol_seeds():
    events = [
        {"v": 1, "type": "hello", "engine_version": "0.1.0", "protocol": 1,
         "libtorch": "1.13", "cuda": None, "devices": [{"type": "cpu", "index": 0,
                                                         "threads": 2}]},
        {"v": 1, "type": "step", "step": 3, "loss": 0.25, "lr": 1e-4,
         "mem": [{"rank": 0, "allocated": 1, "peak": 2}]},
        {"v": 1, "type": "error", "code": "bad_input", "message": "m", "hint": "h"},
        {"v": 1, "type": "done", "status": "ok", "summary": {}},
    ]
    for event in events:
        write("protocol", "event_" + event["type"], json.dumps(event))
    for command in ["stop", "checkpoint", "validate", "pause", "resume", "unknown"]:
        write("protocol", "command_" + command, json.dumps({"v": 1, "cmd": command}))
    write("protocol", "bad_version", '{"v": 2, "type": "hello"}')
    write("protocol", "bad_version_float", '{"v": 1.5, "cmd": "stop"}')
    write("protocol", "bad_no_kind", '{"v": 1}')
    write("protocol", "bad_json", '{"v": 1, "type": "st')


def caption_seeds():
    text = "A red ball bounces on a wooden floor.\n"
    write("caption_decoder", "utf8", text)
    write("caption_decoder", "utf8_bom", b"\xef\xbb\xbf" + text.encode())
    write("caption_decoder", "utf16le_bom", b"\xff\xfe" + text.encode("utf-16-le"))
    write("caption_decoder", "utf16be_bom", b"\xfe\xff" + text.encode("utf-16-be"))
    write("caption_decoder", "utf16le_no_bom", text.encode("utf-16-le"))
    write("caption_decoder", "gb18030", "一只红色的球在木地板上弹跳。\n".encode("gb18030"))
    write("caption_decoder", "big5", "一隻紅色的球在木地板上彈跳。\n".encode("big5"))
    write("caption_decoder", "shift_jis", "赤いボールが木の床で跳ねる。\n".encode("shift_jis"))
    write("caption_decoder", "euc_kr", "빨간 공이 나무 바닥에서 튄다.\n".encode("euc_kr"))
    write("caption_decoder", "windows1251", "Красный мяч прыгает по полу.\n".encode("cp1251"))
    write("caption_decoder", "windows1252", "Un ballon rouge rebondit, café.\n".encode("cp1252"))
    write("caption_decoder", "stray_nul", b"a red\0 ball\r\nsecond line\r")
    write("caption_decoder", "nul_between_words", b"\0A panda\0plays guitar\0\0")
    lone = "A cat ".encode("utf-16-le") + b"\x00\xd8" + " sleeps.\n".encode("utf-16-le")
    write("caption_decoder", "utf16le_bom_unpaired_surrogate", b"\xff\xfe" + lone)
    write("caption_decoder", "utf16le_no_bom_unpaired_surrogate", text.encode("utf-16-le") + lone)
    write("caption_decoder", "utf16be_bom_reversed_pair",
          b"\xfe\xff" + "x".encode("utf-16-be") + b"\xde\x00\xd8\x3d" + b"\xd8\x3d")
    write("caption_decoder", "undecodable", bytes(range(128, 256)) + b"\\x41")


def csv_seeds():
    write("csv_table", "comma", 'video,caption\na.mp4,a red ball\nb.mp4,"quoted, with comma"\n')
    write("csv_table", "semicolon", "file;prompt\r\na.mp4;un ballon\r\nb.mp4;\"deux\r\nlignes\"\r\n")
    write("csv_table", "tab", "path\tcaption\tnote\na.mp4\tx\n\n")
    write("csv_table", "doubled_quotes", 'video,caption\na.mp4,"she said ""hi"""\n')
    write("csv_table", "bad_unterminated", 'video,caption\na.mp4,"never closed\nb.mp4,x\n')
    write("csv_table", "bad_ragged", "a,b\n1,2,3,4\n5\n,,,\n")
    write("csv_table", "bad_empty_header", "\n\nvideo,caption\n")


def factory_seeds():
    videos = "videos/a.mp4\nvideos/b.mp4\n"
    prompts = "a red ball\nA cat, in the sun.\n"
    write("factory_layout", "valid", videos + SEPARATOR.decode() + prompts)
    write("factory_layout", "valid_crlf", "a.mp4\r\nb.mp4\r\n" + SEPARATOR.decode() + "x\r\ny\r\n")
    write("factory_layout", "bad_counts", videos + SEPARATOR.decode() + "only one\n")
    write("factory_layout", "bad_escaping", "../outside.mp4\n/etc/passwd\n\nvideos/./../../x\n" +
          SEPARATOR.decode() + "a\nb\nc\nd\n")
    write("factory_layout", "bad_utf16_prompts",
          videos.encode() + SEPARATOR + b"\xff\xfe" + prompts.encode("utf-16-le"))


if __name__ == "__main__":
    safetensors_seeds()
    index_seeds()
    manifest_seeds()
    job_seeds()
    sweep_seeds()
    protocol_seeds()
    caption_seeds()
    csv_seeds()
    factory_seeds()
