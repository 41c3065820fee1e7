"""The standalone lightning_fabric package on the simulated device: the Fabric program of
test_lightning_fabric_sim.py, importing ``lightning_fabric``, alone and next to
``lightning.fabric`` in one process."""
from tests._fresh import last_json, run_sim
from tests.areas.lightning.test_lightning_fabric_sim import PROGRAM

STANDALONE = PROGRAM % "lightning_fabric"


def test_standalone_fabric_with_mixed_precision_matches_hand_written_step():
    assert last_json(run_sim(STANDALONE)) == {"device": "musa:0", "same": True}


def test_without_its_area_the_standalone_fabric_refuses_the_device():
    proc = run_sim(STANDALONE, check=False, TORCHADA_DISABLE_AREAS="lightning")
    assert proc.returncode != 0 and "Device should be CUDA, got musa:0" in proc.stderr


def test_with_both_packages_imported_each_class_is_patched_once_by_its_own_trigger():
    both = "import lightning.fabric.accelerators.cuda as a\n" + STANDALONE + (
        "\nimport sys, lightning_fabric.accelerators.cuda as b\n"
        "import torchada\n"
        "(area,) = [a for a in torchada.status().areas if a.name == 'lightning']\n"
        "print(json.dumps({'two_classes': a.CUDAAccelerator is not b.CUDAAccelerator,\n"
        "                  'patched': [hasattr(m.CUDAAccelerator.setup_device, '__wrapped__')\n"
        "                              for m in (a, b)],\n"
        "                  'state': area.state,\n"
        "                  'fired': {f['name']: f['state'] for f in area.fired},\n"
        "                  'imported': [t for t in area.triggers if t in sys.modules]}))\n")
    out = last_json(run_sim(both))
    assert out["two_classes"] and out["patched"] == [True, True] and out["state"] == "applied"
    assert {"lightning.fabric.accelerators.cuda",
            "lightning_fabric.accelerators.cuda"} <= set(out["imported"])
    # one line per trigger module: applied where it was imported, pending where not
    assert out["fired"] == {t: "applied" if t in out["imported"] else "pending"
                            for t in ("lightning.fabric.accelerators.cuda",
                                      "lightning.pytorch.accelerators.cuda",
                                      "lightning_fabric.accelerators.cuda",
                                      "pytorch_lightning.accelerators.cuda")}
