"""Tensors on the simulated musa device hold data and compute what CPU computes."""

CODE = r'''
import io, torch, torch_musa
torch.manual_seed(0)
def same(a, b, tol=1e-5, what=""):
    assert a.device.type == "musa", what + ": result not on musa: %s" % a.device
    assert torch.allclose(a.cpu(), b, atol=tol, rtol=tol), what + ": %s vs %s" % (a.cpu(), b)

a, b = torch.randn(4, 5), torch.randn(4, 5)
A, B = a.to("musa"), b.musa()
same(A + B, a + b, what="add"); same(A * B - 2, a * b - 2, what="mul/sub")
same(torch.exp(A).sum(1), torch.exp(a).sum(1), what="exp/sum")
same(A.max(dim=0).values, a.max(dim=0).values, what="max")
same(torch.where(A > 0, A, B), torch.where(a > 0, a, b), what="where")
same(A + torch.tensor(3.0), a + 3, what="0-dim cpu scalar mixes")

# views and in-place writes go to the same bytes
x = torch.arange(12.).reshape(3, 4); X = x.to("musa")
X[0] = 1; x[0] = 1; same(X, x, what="setitem row")
X[:, 1].mul_(10); x[:, 1].mul_(10); same(X, x, what="strided view in-place")
v = X.view(-1)[5:]; v.add_(100); x.view(-1)[5:].add_(100); same(X, x, what="flat view add_")
X.t()[2].zero_(); x.t()[2].zero_(); same(X, x, what="transposed view")
Xn = X.narrow(1, 1, 2); Xn.copy_(torch.ones(3, 2)); x.narrow(1, 1, 2).copy_(torch.ones(3, 2)); same(X, x, what="copy_ from cpu into view")
out = torch.empty(0, device="musa"); torch.add(X, 1, out=out); same(out, x + 1, what="out= resize")
assert X.sum().item() == x.sum().item(), "item()"

# matmul
m1, m2 = torch.randn(8, 16), torch.randn(16, 4)
same(m1.musa() @ m2.musa(), m1 @ m2, 1e-4, "matmul")
same(torch.bmm(torch.ones(2, 3, 4, device="musa"), torch.ones(2, 4, 5, device="musa")), torch.full((2, 3, 5), 4.), what="bmm")

# convolution forward and backward
conv = torch.nn.Conv2d(3, 6, 3, padding=1)
inp = torch.randn(2, 3, 10, 10)
ref = conv(inp); ref.sum().backward(); gref = conv.weight.grad.clone(); conv.zero_grad()
convm = torch.nn.Conv2d(3, 6, 3, padding=1); convm.load_state_dict(conv.state_dict()); convm = convm.musa()
got = convm(inp.musa()); got.sum().backward()
same(got, ref, 1e-4, "conv2d"); same(convm.weight.grad, gref, 1e-3, "conv2d weight grad")

# an nn training step matches CPU
torch.manual_seed(1)
net = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
netm = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
netm.load_state_dict(net.state_dict()); netm.to("musa")
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
optm = torch.optim.SGD(netm.parameters(), lr=0.1, momentum=0.9)
data, target = torch.randn(16, 10), torch.randint(0, 2, (16,))
for _ in range(3):
    for n, o, d, t in ((net, opt, data, target), (netm, optm, data.musa(), target.musa())):
        o.zero_grad(); loss = torch.nn.functional.cross_entropy(n(d), t); loss.backward(); o.step()
for p, q in zip(net.parameters(), netm.parameters()):
    same(q, p.detach(), 1e-4, "training step")

# save and load
buf = io.BytesIO(); torch.save({"w": X, "sd": netm.state_dict()}, buf); buf.seek(0)
loaded = torch.load(buf)
assert loaded["w"].device == torch.device("musa:0"), loaded["w"].device
same(loaded["w"], x, what="save/load")
buf.seek(0); cpu = torch.load(buf, map_location="cpu"); assert cpu["w"].device.type == "cpu"
# second device
Y = torch.ones(3, device="musa:1") * 2
assert Y.device == torch.device("musa:1"), Y.device
same(Y.to("musa:0") + 1, torch.full((3,), 3.), what="cross-device copy")
print("OK")
'''


def test_numbers_match_cpu(sim):
    assert sim(CODE).stdout.strip().endswith("OK")
