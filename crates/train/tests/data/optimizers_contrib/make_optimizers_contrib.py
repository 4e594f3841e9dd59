"""Writes expected.json for crates/train/tests/integration/optimizers_contrib.rs: what
tf.contrib.opt's AdaMaxOptimizer, AddSignOptimizer and PowerSignOptimizer (TensorFlow 1.15) and
the sign decay functions of sign_decay.py compute, on fixed variables and gradients.

tf.contrib is not in TensorFlow 2.21, so this is a numpy transcription of the TF 1.15 Python
(adamax.py, addsign.py, powersign.py, sign_decay.py) and of the kernels they call
(training_ops.cc: ApplyAdaMax, ApplyAddSign, ApplyPowerSign), in float32 and in their order of
operations. The kernels themselves are checked bit for bit against TensorFlow 2.21 in
crates/ops/tests/integration/training_apply_more_v2.rs; numpy's exp and cos may differ from
Eigen's in the last bit, so the Rust test compares within a few float32 ulps.

* "dense": optimizer x configuration: apply_gradients of constant gradients G (var W, 4x3) with a
  global step, STEPS steps; the variable and every slot (and AdaMax's beta powers) after each.
* "sparse": the same through minimize of reduce_sum(gather(w, IDX) * C) (IDX with a repeated
  row, so the gradient is deduplicated first): TensorFlow's _apply_sparse paths.
* "decays": the sign decay functions at global steps 0..9.
* "slots": the slot variables' names.

Run from any directory: python make_optimizers_contrib.py (numpy only).
"""
import json
import math
import os

import numpy as np

F = np.float32
HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 4

W = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.5], [-0.75, 0.1, 2.0], [1.25, -0.3, 0.6]], F)
G = np.array([[0.3, -1.5, 2.0], [0.01, 0.7, -0.2], [1.1, -0.05, 0.4], [0.0, 0.9, -2.5]], F)
WS = np.array([[0.5, -1.0, 2.0], [-0.25, 1.5, 0.3], [1.0, 1.0, -1.0],
               [0.2, -0.6, 0.8], [2.0, 0.0, -0.4]], F)
IDX = np.array([3, 0, 3], np.int32)
C = np.array([[0.5, -1.0, 0.25], [1.5, 0.3, -0.7], [0.2, 0.6, -0.1]], F)


# ---- sign decay functions (float32 graphs of sign_decay.py) --------------------------------

def linear(decay_steps):
    def fn(step):
        gs = min(step, decay_steps)
        remaining = np.int32(decay_steps) - np.int32(gs)
        return max(F(0.0), F(F(remaining) / F(decay_steps)))
    return fn


def half_cos(fraction):
    return F(F(0.5) * F(F(1.0) + np.cos(F(F(math.pi) * fraction))))


def cosine(decay_steps, num_periods=0.5, zero_after=None):
    def fn(step):
        gs = min(step, decay_steps)
        completed = F(F(gs) / F(decay_steps))
        fraction = F(F(2.0 * num_periods) * completed)
        decayed = half_cos(fraction)
        if zero_after is not None and fraction >= F(2 * zero_after):
            return F(0.0)
        return decayed
    return fn


def restart(decay_steps, num_periods=1, zero_after=None):
    def fn(step):
        gs = min(step, decay_steps)
        num = np.fmod(F(F(num_periods) * F(gs)), F(decay_steps))  # non-negative: floormod
        decayed = half_cos(F(num / F(decay_steps)))
        if zero_after is not None:
            tmp = F(F(num_periods * gs) / F(decay_steps))
            if tmp >= F(zero_after):
                return F(0.0)
        return decayed
    return fn


DECAYS = {
    "linear5": (lambda: linear(5), {"kind": "linear", "decay_steps": 5}),
    "cosine6": (lambda: cosine(6), {"kind": "cosine", "decay_steps": 6}),
    "cosine6_p1_z05": (lambda: cosine(6, 1.0, 0.5),
                       {"kind": "cosine", "decay_steps": 6, "num_periods": 1.0,
                        "zero_after": 0.5}),
    "restart4": (lambda: restart(4), {"kind": "restart", "decay_steps": 4}),
    "restart8_p3_z2": (lambda: restart(8, 3, 2.0),
                       {"kind": "restart", "decay_steps": 8, "num_periods": 3.0,
                        "zero_after": 2.0}),
}

# ---- optimizers: one step of each, on numpy arrays -----------------------------------------


def sign(x):
    return np.sign(x).astype(F)


class AdaMax:
    def __init__(self, lr=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8):
        self.lr, self.b1, self.b2, self.eps = F(lr), F(beta1), F(beta2), F(epsilon)
        self.b1p, self.b2p = F(beta1), F(beta2)

    def slots(self, w):
        self.m, self.v = np.zeros_like(w), np.zeros_like(w)

    def dense(self, w, g, step):
        one = F(1)
        self.m = self.m + (g - self.m) * (one - self.b1)
        self.v = np.maximum(self.b2 * self.v, np.abs(g))
        w = w - F(self.lr / (one - self.b1p)) * (self.m / (self.v + self.eps))
        self.finish()
        return w

    def sparse(self, w, vals, idx, step):
        one = F(1)
        m_s = self.m[idx] * self.b1 + vals * (one - self.b1)
        self.m[idx] = m_s
        v_s = np.maximum(self.v[idx] * self.b2, np.abs(vals))
        self.v[idx] = v_s
        w = w.copy()
        w[idx] += F(-self.lr / (one - self.b1p)) * (m_s / (v_s + self.eps))
        self.finish()
        return w

    def finish(self):
        self.b1p, self.b2p = F(self.b1p * self.b1), F(self.b2p * self.b2)

    def state(self):
        return {"m": self.m, "v": self.v, "beta1_power": self.b1p, "beta2_power": self.b2p}


class Sign:
    def __init__(self, power, lr=0.1, alpha=1.0, base=math.e, beta=0.9, decay=None):
        self.power, self.lr, self.beta = power, F(lr), F(beta)
        self.alpha = F(math.log(base)) if power else F(alpha)
        self.decay = decay

    def slots(self, w):
        self.m = np.zeros_like(w)

    def sd(self, step):
        return F(1.0) if self.decay is None else self.decay(step)

    def mult(self, sgm, sd):
        if self.power:
            return np.exp(F(self.alpha * sd) * sgm)
        return self.alpha + sd * sgm

    def dense(self, w, g, step):
        self.m = self.m * self.beta + g * (F(1) - self.beta)
        sgm = sign(g) * sign(self.m)
        return w - F(self.lr) * self.mult(sgm, self.sd(step)) * g

    def sparse(self, w, vals, idx, step):
        dense = np.zeros_like(w)
        dense[idx] += vals
        self.m = self.m * self.beta + dense * (F(1) - self.beta)
        sgm = sign(self.m[idx]) * sign(vals)
        if self.power:
            mult = np.power(F(math.e), F(self.alpha * self.sd(step)) * sgm).astype(F)
        else:
            mult = self.alpha + self.sd(step) * sgm
        w = w.copy()
        w[idx] -= F(self.lr) * mult * vals
        return w

    def state(self):
        return {"m": self.m}


def make(kind, cfg):
    cfg = dict(cfg)
    decay = cfg.pop("decay", None)
    fn = DECAYS[decay][0]() if decay else None
    if kind == "AdaMax":
        return AdaMax(**cfg)
    return Sign(kind == "PowerSign", decay=fn, **cfg)


CONFIGS = {
    "AdaMax": [{"lr": 0.05}, {"lr": 0.1, "beta1": 0.5, "beta2": 0.9, "epsilon": 1e-3}],
    "AddSign": [{"lr": 0.1}, {"lr": 0.05, "alpha": 0.5, "beta": 0.8, "decay": "linear5"}],
    "PowerSign": [{"lr": 0.1}, {"lr": 0.05, "base": 2.0, "beta": 0.8, "decay": "cosine6"},
                  {"lr": 0.1, "decay": "restart8_p3_z2"}],
}


def run(kind, cfg, sparse):
    opt = make(kind, cfg)
    w = (WS if sparse else W).copy()
    opt.slots(w)
    if sparse:
        uniq, pos = np.unique(IDX, return_index=True)
        order = np.sort(pos)
        idx = IDX[order]  # unique indices in order of first appearance, as tf.unique
        vals = np.stack([C[IDX == i].sum(axis=0, dtype=F) for i in idx]).astype(F)
    steps = []
    for t in range(STEPS):
        w = opt.sparse(w, vals, idx, t) if sparse else opt.dense(w, G, t)
        st = {k: np.asarray(v, F).tolist() for k, v in opt.state().items()}
        st["w"] = w.astype(F).tolist()
        steps.append(st)
    out = {"optimizer": kind, "config": cfg, "steps": steps}
    if "decay" in cfg:
        out["decay"] = DECAYS[cfg["decay"]][1]
    return out


def main():
    cases = {"dense": [], "sparse": []}
    for kind, cfgs in CONFIGS.items():
        for cfg in cfgs:
            cases["dense"].append(run(kind, cfg, False))
            cases["sparse"].append(run(kind, cfg, True))
    decays = []
    for name, (fn, desc) in DECAYS.items():
        f = fn()
        decays.append({"decay": desc, "values": [float(f(s)) for s in range(10)]})
    data = {
        "inputs": {"w": W.tolist(), "g": G.tolist(), "ws": WS.tolist(),
                   "idx": IDX.tolist(), "c": C.tolist()},
        "cases": cases,
        "decays": decays,
        "slots": {"AdaMax": {"m": "w/AdaMax", "v": "w/AdaMax_1"},
                  "AddSign": {"m": "w/AddSignOptimizer"},
                  "PowerSign": {"m": "w/PowerSignOptimizer"}},
    }
    with open(os.path.join(HERE, "expected.json"), "w") as fh:
        json.dump(data, fh, indent=None, separators=(",", ":"))


if __name__ == "__main__":
    main()
