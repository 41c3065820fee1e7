"""The standalone lightning_fabric package on the simulated device: the Fabric program of
tests/areas/lightning_fabric, importing ``lightning_fabric``, alone and next to
``lightning.fabric`` in one process."""
from tests._fresh import last_json, run_sim
from tests.areas.lightning_fabric.test_lightning_fabric_sim import PROGRAM

STANDALONE = PROGRAM % "lightning_fabric"


def test_standalone_fabric_with_mixed_precision_matches_hand_written_step():
    assert last_json(run_sim(STANDALONE)) == {"device": "musa:0", "same": True}


def test_without_its_area_the_standalone_fabric_refuses_the_device():
    proc = run_sim(STANDALONE, check=False, TORCHADA_DISABLE_AREAS="lightning_fabric_standalone")
    assert proc.returncode != 0 and "Device should be CUDA, got musa:0" in proc.stderr


def test_with_both_packages_imported_each_class_is_patched_once_by_its_own_area():
    both = "import lightning.fabric.accelerators.cuda as a\n" + STANDALONE + (
        "\nimport lightning_fabric.accelerators.cuda as b\n"
        "import torchada\n"
        "rows = {a.name: a.state for a in torchada.status().areas}\n"
        "print(json.dumps({'two_classes': a.CUDAAccelerator is not b.CUDAAccelerator,\n"
        "                  'packaged': rows['lightning_fabric'],\n"
        "                  'standalone': rows['lightning_fabric_standalone']}))\n")
    assert last_json(run_sim(both)) == {"two_classes": True, "packaged": "applied",
                                        "standalone": "applied"}
