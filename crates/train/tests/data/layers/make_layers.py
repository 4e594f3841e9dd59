"""Writes what weir's tf.layers tests compare with (crates/train/tests/integration/layers.rs).

TensorFlow 2.21 serves `tf.compat.v1.layers` through the legacy Keras package only, so run it
with tf-keras 2.21 importable (`pip install tf-keras==2.21.0`, or
`pip install --target DIR --no-deps tf-keras==2.21.0` and PYTHONPATH=DIR):

    python make_layers.py

It replaces, beside this script:

* expected.json: per case, the inputs and initial values, then what TensorFlow computed in
  graph mode with TF1 (ref) variables: outputs, variable names/shapes/trainability, gradients,
  losses and variables after GradientDescent/Adam steps, batch-norm moving statistics after
  training steps and outputs in inference mode, dropout in inference mode (identity) and with
  seeds, regularization losses (tf.contrib.layers' l1/l2 formulas, written out below because
  contrib is gone from TensorFlow 2), layer and variable names, and error messages.
* ckpt/: a tf.train.Saver checkpoint of the trained `bn_fused_tensor` model, which weir
  restores into the same model built with weir_train::layers.

Values are small multiples of 1/8 where they are inputs, so they are exact in JSON; outputs are
float32 values written as the doubles they equal.
"""

import json
import os
import re
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def arr(shape, mul, mod, scale=0.125):
    """A deterministic float32 array: ((i * mul) % mod - mod // 2) * scale, row-major."""
    n = int(np.prod(shape))
    i = np.arange(n)
    return (((i * mul) % mod - mod // 2) * scale).reshape(shape).astype(np.float32)


def enc(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "values": [float(v) for v in a.reshape(-1)]}


def const(a):
    return tf.constant_initializer(np.asarray(a))


# tf.contrib.layers' regularizers (TensorFlow 1.15), which tf.layers users passed as
# kernel_regularizer=: the same formulas and name scopes.
def l1_regularizer(scale, scope=None):
    def l1(weights):
        with tf.name_scope(scope, "l1_regularizer", [weights]) as name:
            s = tf.convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return tf.multiply(s, tf.reduce_sum(tf.abs(weights)), name=name)

    return l1


def l2_regularizer(scale, scope=None):
    def l2(weights):
        with tf.name_scope(scope, "l2_regularizer", [weights]) as name:
            s = tf.convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return tf.multiply(s, tf.nn.l2_loss(weights), name=name)

    return l2


def l1_l2_regularizer(scale_l1, scale_l2):
    parts = [l1_regularizer(scale_l1), l2_regularizer(scale_l2)]

    def both(weights):
        with tf.name_scope("l1_l2_regularizer", "sum_regularizer", [weights]) as name:
            return tf.add_n([p(weights) for p in parts], name=name)

    return both


def var_info():
    trainable = {v.name for v in tf.trainable_variables()}
    return [
        {"name": v.op.name, "shape": v.shape.as_list(), "trainable": v.name in trainable}
        for v in tf.global_variables()
    ]


def values_of(sess):
    return {v.op.name: enc(sess.run(v)) for v in tf.global_variables()}


def case_dense():
    x_val, t_val = arr([4, 3], 5, 11), arr([4, 2], 3, 7)
    k1, b1, k2 = arr([3, 4], 7, 13), arr([4], 3, 5), arr([4, 2], 5, 9)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        t = tf.placeholder(tf.float32, [None, 2])
        h = tf.layers.dense(x, 4, activation=tf.nn.relu, kernel_initializer=const(k1),
                            bias_initializer=const(b1))
        y = tf.layers.dense(h, 2, kernel_initializer=const(k2))
        loss = tf.reduce_mean(tf.square(y - t))
        variables = tf.global_variables()
        grads = tf.gradients(loss, variables + [x])
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        feed = {x: x_val, t: t_val}
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            out = s.run([y, loss] + grads, feed)
            losses = []
            for _ in range(3):
                s.run(train, feed)
                losses.append(float(s.run(loss, feed)))
            return {
                "x": enc(x_val), "t": enc(t_val),
                "init": {"k1": enc(k1), "b1": enc(b1), "k2": enc(k2)},
                "names": {"h": h.name, "y": y.name},
                "vars": var_info(),
                "y": enc(out[0]), "loss": float(out[1]),
                "grads": {v.op.name: enc(gv) for v, gv in zip(variables, out[2:])},
                "grad_x": enc(out[-1]),
                "losses": losses, "final": values_of(s),
            }


def case_dense_rank3():
    x_val, k, b = arr([2, 3, 4], 3, 7), arr([4, 2], 5, 11), arr([2], 1, 3)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3, 4])
        y = tf.layers.dense(x, 2, kernel_initializer=const(k), bias_initializer=const(b))
        loss = tf.reduce_sum(y * y)
        gk, gx = tf.gradients(loss, [tf.global_variables()[0], x])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            yv, gkv, gxv = s.run([y, gk, gx], {x: x_val})
            return {"x": enc(x_val), "k": enc(k), "b": enc(b), "shape": str(y.shape),
                    "y": enc(yv), "grad_kernel": enc(gkv), "grad_x": enc(gxv)}


def case_regularized():
    x_val, t_val = arr([3, 3], 5, 9), arr([3, 2], 7, 9)
    k1, b1, k2, w = arr([3, 4], 3, 11), arr([4], 3, 7), arr([4, 2], 7, 9), arr([3], 5, 7)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        t = tf.placeholder(tf.float32, [None, 2])
        h = tf.layers.dense(x, 4, kernel_initializer=const(k1), bias_initializer=const(b1),
                            kernel_regularizer=l2_regularizer(0.1),
                            bias_regularizer=l1_regularizer(0.2),
                            activity_regularizer=l2_regularizer(0.05))
        y = tf.layers.dense(h, 2, kernel_initializer=const(k2),
                            kernel_regularizer=l1_l2_regularizer(0.01, 0.02))
        tf.get_variable("w_extra", [3], initializer=const(w), regularizer=l2_regularizer(0.3))
        reg_losses = tf.losses.get_regularization_losses()
        total = tf.losses.get_regularization_loss()
        loss = tf.reduce_mean(tf.square(y - t)) + total
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
        feed = {x: x_val, t: t_val}
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            regs, tot, lv = s.run([reg_losses, total, loss], feed)
            losses = []
            for _ in range(3):
                s.run(train, feed)
                losses.append(float(s.run(loss, feed)))
            return {
                "x": enc(x_val), "t": enc(t_val),
                "init": {"k1": enc(k1), "b1": enc(b1), "k2": enc(k2), "w": enc(w)},
                "reg_names": [r.name for r in reg_losses], "reg_values": [float(r) for r in regs],
                "total_name": total.name, "total": float(tot), "loss": float(lv),
                "losses": losses, "final": values_of(s),
                "trainable": [v.op.name for v in tf.trainable_variables()],
            }


def case_conv():
    x_val, t_val = arr([2, 5, 5, 2], 7, 13), arr([2, 3], 5, 7)
    k1, b1 = arr([3, 3, 2, 3], 5, 11, 0.0625), arr([3], 1, 5)
    k2, k3 = arr([2, 2, 3, 2], 3, 7), arr([2, 3], 7, 11)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 5, 5, 2])
        t = tf.placeholder(tf.float32, [None, 3])
        h = tf.layers.conv2d(x, 3, 3, padding="same", activation=tf.nn.relu,
                             kernel_initializer=const(k1), bias_initializer=const(b1))
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.conv2d(h, 2, (2, 2), strides=(2, 2), kernel_initializer=const(k2))
        h = tf.layers.average_pooling2d(h, 2, 1, padding="same")
        h = tf.layers.flatten(h)
        y = tf.layers.dense(h, 3, kernel_initializer=const(k3))
        loss = tf.reduce_mean(tf.square(y - t))
        variables = tf.global_variables()
        grads = tf.gradients(loss, variables)
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        feed = {x: x_val, t: t_val}
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            out = s.run([y, loss] + grads, feed)
            losses = []
            for _ in range(2):
                s.run(train, feed)
                losses.append(float(s.run(loss, feed)))
            return {
                "x": enc(x_val), "t": enc(t_val),
                "init": {"k1": enc(k1), "b1": enc(b1), "k2": enc(k2), "k3": enc(k3)},
                "vars": var_info(), "y": enc(out[0]), "loss": float(out[1]),
                "grads": {v.op.name: enc(gv) for v, gv in zip(variables, out[2:])},
                "losses": losses, "final": values_of(s),
            }


def bn_training_case(shape, fused, axis=-1, momentum=0.9, epsilon=1e-3, ckpt=None):
    """A batch-norm layer trained with a training placeholder and GradientDescent, its update
    ops run through control_dependencies(UPDATE_OPS)."""
    batches = [arr(shape, 5 + i, 13 + 2 * i, 0.25) for i in range(3)]
    probe = arr(shape, 3, 11, 0.5)
    n_feat = shape[axis]
    gamma, beta = arr([n_feat], 3, 7) + 1.0, arr([n_feat], 5, 7)
    w = arr(shape[1:], 3, 5)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None] + shape[1:])
        tr = tf.placeholder(tf.bool, [])
        y = tf.layers.batch_normalization(
            x, axis=axis, momentum=momentum, epsilon=epsilon, training=tr, fused=fused,
            gamma_initializer=const(gamma), beta_initializer=const(beta))
        loss = tf.reduce_sum(y * w)
        variables = tf.global_variables()
        grads = tf.gradients(loss, [variables[0], variables[1], x])
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(updates):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            first = s.run([y, loss] + grads, {x: batches[0], tr: True})
            losses = []
            for b in batches:
                _, lv = s.run([train, loss], {x: b, tr: True})
                losses.append(float(lv))
            inference = s.run(y, {x: probe, tr: False})
            result = {
                "batches": [enc(b) for b in batches], "probe": enc(probe),
                "gamma": enc(gamma), "beta": enc(beta), "w": enc(w),
                "vars": var_info(), "update_ops": [u.name for u in updates],
                "y_train": enc(first[0]), "loss": float(first[1]),
                "grad_gamma": enc(first[2]), "grad_beta": enc(first[3]),
                "grad_x": enc(first[4]), "losses": losses, "final": values_of(s),
                "y_inference": enc(inference),
            }
            if ckpt:
                shutil.rmtree(ckpt, ignore_errors=True)
                os.makedirs(ckpt)
                tf.train.Saver().save(s, os.path.join(ckpt, "model.ckpt"), write_meta_graph=False,
                                      write_state=False)
            return result


def case_bn_bool(shape, axis, center, fused=None):
    """A training layer and an inference layer sharing variables (name="bn", reuse=True); the
    training layer's update ops run twice."""
    batches = [arr(shape, 5 + i, 13 + 2 * i, 0.25) for i in range(2)]
    probe = arr(shape, 3, 11, 0.5)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape)
        y_train = tf.layers.batch_normalization(x, axis=axis, center=center, training=True,
                                                name="bn", fused=fused)
        y_inf = tf.layers.batch_normalization(x, axis=axis, center=center, training=False,
                                              name="bn", reuse=True, fused=fused)
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            outs = [s.run([y_train] + updates, {x: b})[0] for b in batches]
            return {
                "batches": [enc(b) for b in batches], "probe": enc(probe),
                "vars": var_info(), "update_ops": [u.name for u in updates],
                "y_train": [enc(o) for o in outs], "final": values_of(s),
                "y_inference": enc(s.run(y_inf, {x: probe})),
            }


def case_dropout():
    x_val = arr([4, 5], 3, 7) + 2.0
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(7)
        x = tf.placeholder(tf.float32, [4, 5])
        tr = tf.placeholder(tf.bool, [])
        off = tf.layers.dropout(x, 0.5, training=False)
        fed = tf.layers.dropout(x, 0.5, training=tr)
        zero = tf.layers.dropout(x, 0.0, training=True)
        seeded = tf.layers.dropout(x, 0.4, seed=3, training=True)
        noise = tf.layers.dropout(x, 0.5, noise_shape=[None, 1], seed=4, training=True)
        with tf.Session() as s:
            r = s.run([off, fed, zero, seeded, noise], {x: x_val, tr: False})
            on = s.run(fed, {x: x_val, tr: True})
            return {"x": enc(x_val), "names": [t.name for t in [off, fed, zero, seeded, noise]],
                    "off": enc(r[0]), "fed_false": enc(r[1]), "rate0": enc(r[2]),
                    "seeded": enc(r[3]), "noise_shape": enc(r[4]),
                    "fed_true_kept": int(np.count_nonzero(on))}


def case_names():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        img = tf.placeholder(tf.float32, [None, 4, 4, 1])
        outs = [tf.layers.dense(x, 2), tf.layers.dense(x, 2), tf.layers.dense(x, 2, name="fc"),
                tf.layers.dense(x, 2, name="fc", reuse=True)]
        for reuse in [None, True]:
            with tf.variable_scope("model", reuse=reuse):
                outs += [tf.layers.dense(x, 2), tf.layers.dense(x, 2)]
        with tf.name_scope("ns"):
            outs.append(tf.layers.dense(x, 2))
        layer = tf.layers.Dense(2)
        outs += [layer(x), layer(x)]
        outs.append(tf.layers.conv2d(img, 2, 3))
        outs.append(tf.layers.batch_normalization(img, training=True))
        outs.append(tf.layers.dense(x, 2, trainable=False))
        outs.append(tf.layers.dense(x, 2, use_bias=False))
        with tf.variable_scope("outer", reuse=tf.AUTO_REUSE):
            outs += [tf.layers.dense(x, 2, name="shared"), tf.layers.dense(x, 2, name="shared")]
        with tf.variable_scope("blk"):
            with tf.name_scope("inner"):
                outs.append(tf.layers.dense(x, 2))
            outs.append(tf.layers.dense(x, 2))
        outs.append(tf.layers.max_pooling2d(img, 2, 2))
        outs.append(tf.layers.flatten(img))
        outs.append(tf.layers.dropout(x, training=True))
        return {"vars": var_info(), "outputs": [o.name for o in outs],
                "update_ops": [u.name for u in tf.get_collection(tf.GraphKeys.UPDATE_OPS)]}


def normalized(e):
    """The first line of an error message, TensorShape v1 printing turned into plain tuples."""
    msg = str(e).split("\n")[0].strip()
    msg = re.sub(r"Dimension\((\d+|None)\)", r"\1", msg)
    return re.sub(r"\?(?=[,)])", "None", msg)


def case_errors():
    cases = {
        "dense_rank1": lambda: tf.layers.dense(tf.placeholder(tf.float32, [3]), 2),
        "dense_unknown_depth": lambda: tf.layers.dense(
            tf.placeholder(tf.float32, [None, None]), 2),
        "conv_rank3": lambda: tf.layers.conv2d(tf.placeholder(tf.float32, [2, 3, 3]), 2, 3),
        "pool_rank3": lambda: tf.layers.max_pooling2d(
            tf.placeholder(tf.float32, [2, 3, 3]), 2, 2),
        "conv_filters0": lambda: tf.layers.conv2d(
            tf.placeholder(tf.float32, [1, 3, 3, 1]), 0, 3),
        "conv_kernel0": lambda: tf.layers.conv2d(
            tf.placeholder(tf.float32, [1, 3, 3, 1]), 2, (0, 3)),
        "conv_padding": lambda: tf.layers.conv2d(
            tf.placeholder(tf.float32, [1, 3, 3, 1]), 2, 3, padding="full"),
        "conv_strides_dilation": lambda: tf.layers.conv2d(
            tf.placeholder(tf.float32, [1, 3, 3, 1]), 2, 3, strides=2, dilation_rate=2),
        "conv_channels": lambda: tf.layers.conv2d(
            tf.placeholder(tf.float32, [1, 3, 3, None]), 2, 3),
        "dropout_rate": lambda: tf.layers.dropout(tf.placeholder(tf.float32, [2]), 1.5),
        "bn_axis": lambda: tf.layers.batch_normalization(
            tf.placeholder(tf.float32, [2, 3]), axis=5),
        "reuse_exists": lambda: [tf.layers.dense(tf.placeholder(tf.float32, [1, 2]), 2,
                                                 name="same") for _ in range(2)],
        "reuse_missing": lambda: tf.layers.dense(tf.placeholder(tf.float32, [1, 2]), 2,
                                                 name="nope", reuse=True),
    }
    out = {}
    for name, build in cases.items():
        with tf.Graph().as_default():
            try:
                build()
                out[name] = None
            except (ValueError, TypeError) as e:
                out[name] = normalized(e)
    return out


def main():
    expected = {
        "dense": case_dense(),
        "dense_rank3": case_dense_rank3(),
        "regularized": case_regularized(),
        "conv": case_conv(),
        "bn_fused_tensor": bn_training_case([4, 2, 2, 3], None,
                                            ckpt=os.path.join(HERE, "ckpt")),
        "bn_plain_tensor": bn_training_case([6, 3], None, momentum=0.99, epsilon=0.01),
        "bn_fused_false": bn_training_case([4, 2, 2, 3], False),
        "bn_bool_fused": case_bn_bool([4, 2, 2, 3], -1, True),
        "bn_bool_axis1": case_bn_bool([4, 3, 2], 1, False),
        "dropout": case_dropout(),
        "names": case_names(),
        "errors": case_errors(),
    }
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
