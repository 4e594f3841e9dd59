//! Einsum equations: parsing (the op's `"ij,jk->ik"` with `...` for broadcast dimensions, and
//! the Python layer's implicit output), and the geometry of one evaluation: every label's
//! size and each operand's strides per label, with repeated labels (diagonals) and
//! broadcasting (stride 0) folded in.

use weir_graph::{format_dims, Error, Result};

/// One subscript of an operand: a letter, or the ellipsis standing for broadcast dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sub {
    Label(u8),
    Ellipsis,
}

/// A parsed equation: one subscript list per input, and the output's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Equation {
    pub(crate) inputs: Vec<Vec<Sub>>,
    pub(crate) output: Vec<Sub>,
}

fn subscripts(s: &str, equation: &str) -> Result<Vec<Sub>> {
    let mut out = Vec::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"...") {
            if out.contains(&Sub::Ellipsis) {
                return Err(Error::invalid_argument(format!(
                    "Found more than one ellipsis in subscript '{s}' of equation: {equation}"
                )));
            }
            out.push(Sub::Ellipsis);
            i += 3;
        } else if b[i].is_ascii_alphabetic() {
            out.push(Sub::Label(b[i]));
            i += 1;
        } else {
            return Err(Error::invalid_argument(format!(
                "Invalid character '{}' in einsum equation: {equation}",
                b[i] as char
            )));
        }
    }
    Ok(out)
}

/// Parses an op-level equation: exactly one `->`, one or two inputs (TensorFlow's
/// `ParseEinsumEquation`).
pub(crate) fn parse(equation: &str) -> Result<Equation> {
    let parts: Vec<&str> = equation.split("->").collect();
    if parts.len() != 2 {
        return Err(Error::invalid_argument(format!(
            "Expecting exactly one '->' in einsum equation: {equation}"
        )));
    }
    let inputs: Vec<&str> = parts[0].split(',').collect();
    if inputs.len() != 1 && inputs.len() != 2 {
        return Err(Error::invalid_argument(format!(
            "Expecting 1 or 2 input subscripts in equation '{equation}' but got: {}",
            inputs.len()
        )));
    }
    Ok(Equation {
        inputs: inputs
            .iter()
            .map(|s| subscripts(s, equation))
            .collect::<Result<_>>()?,
        output: subscripts(parts[1], equation)?,
    })
}

/// The Python layer's resolution (`_einsum_v2_parse_and_resolve_equation`): spaces dropped;
/// without `->`, the output is the labels used once, sorted, with `...` first when it is used
/// once; the output's labels must be distinct and come from the inputs. Returns the equation
/// with an explicit output.
pub(crate) fn resolve(equation: &str, num_inputs: usize) -> Result<String> {
    let eq: String = equation.chars().filter(|c| *c != ' ').collect();
    let (ins, out) = match eq.split_once("->") {
        Some((i, o)) => (i.to_string(), Some(o.to_string())),
        None => (eq.clone(), None),
    };
    let n = ins.split(',').count();
    if n != num_inputs {
        return Err(Error::invalid_argument(format!(
            "Got {num_inputs} inputs for equation \"{equation}\", expecting {n}"
        )));
    }
    let marked = ins.replace("...", "0");
    let out = match out {
        Some(o) => o,
        None => {
            let mut once: Vec<char> = marked
                .chars()
                .filter(|&c| c != ',' && marked.matches(c).count() == 1)
                .collect();
            once.sort_unstable();
            once.into_iter()
                .map(|c| {
                    if c == '0' {
                        "...".to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        }
    };
    let out_marked = out.replace("...", "0");
    for (i, c) in out_marked.char_indices() {
        if out_marked[i + 1..].contains(c) {
            return Err(Error::invalid_argument(format!(
                "Output subscripts contain a label appearing more than once: {equation}"
            )));
        }
        if c != '0' && !marked.contains(c) {
            return Err(Error::invalid_argument(format!(
                "Output subscripts contain the label {c} not present in the input subscripts."
            )));
        }
    }
    Ok(format!("{ins}->{out}"))
}

/// One evaluation's geometry. Labels are numbered: the letters by first appearance, then one
/// per broadcast dimension.
#[derive(Debug)]
pub(crate) struct Geometry {
    /// The size of each label.
    pub(crate) sizes: Vec<usize>,
    /// Per operand, `(label, stride)` for each distinct label (strides of repeated labels
    /// summed: a diagonal; a broadcast dimension of size 1 has stride 0).
    pub(crate) operands: Vec<Vec<(usize, usize)>>,
    /// The output's labels, in order (repeats allowed).
    pub(crate) output: Vec<usize>,
}

impl Geometry {
    /// The output's shape.
    pub(crate) fn output_shape(&self) -> Vec<usize> {
        self.output.iter().map(|&l| self.sizes[l]).collect()
    }

    /// Whether operand `i` has label `l`.
    pub(crate) fn has(&self, i: usize, l: usize) -> bool {
        self.operands[i].iter().any(|&(x, _)| x == l)
    }

    /// The stride of label `l` in operand `i`.
    pub(crate) fn stride(&self, i: usize, l: usize) -> usize {
        self.operands[i]
            .iter()
            .find(|&&(x, _)| x == l)
            .map_or(0, |&(_, s)| s)
    }
}

/// Lays `eq` over operands of `shapes` (TensorFlow's `ProcessDimensions` checks and messages).
pub(crate) fn geometry(eq: &Equation, shapes: &[&[usize]]) -> Result<Geometry> {
    if shapes.len() != eq.inputs.len() {
        return Err(Error::invalid_argument(format!(
            "Expected {} inputs but got: {}",
            eq.inputs.len(),
            shapes.len()
        )));
    }
    // The broadcast dims of each operand, and their count in the output.
    let mut ell = Vec::with_capacity(shapes.len());
    for (i, (subs, s)) in eq.inputs.iter().zip(shapes).enumerate() {
        let named = subs.iter().filter(|x| **x != Sub::Ellipsis).count();
        let has = subs.contains(&Sub::Ellipsis);
        if (!has && s.len() != named) || s.len() < named {
            return Err(Error::invalid_argument(format!(
                "Expected input {i} to have rank {named} but got: {}",
                s.len()
            )));
        }
        ell.push(s.len() - named);
    }
    let nb = ell.iter().copied().max().unwrap_or(0);
    let mut letters: Vec<u8> = Vec::new();
    let mut sizes: Vec<Option<usize>> = Vec::new();
    let id = |letters: &mut Vec<u8>, sizes: &mut Vec<Option<usize>>, c: u8| -> usize {
        match letters.iter().position(|&x| x == c) {
            Some(p) => p,
            None => {
                letters.push(c);
                sizes.push(None);
                letters.len() - 1
            }
        }
    };
    // Axis labels of each operand; broadcast labels are numbered after the letters.
    let mut axes: Vec<Vec<Result<usize, usize>>> = Vec::with_capacity(shapes.len());
    for (i, subs) in eq.inputs.iter().enumerate() {
        let mut a = Vec::with_capacity(shapes[i].len());
        for sub in subs {
            match sub {
                Sub::Label(c) => a.push(Ok(id(&mut letters, &mut sizes, *c))),
                Sub::Ellipsis => a.extend((nb - ell[i]..nb).map(Err)),
            }
        }
        axes.push(a);
    }
    let nl = letters.len();
    for (c, _) in eq.output.iter().filter_map(|s| match s {
        Sub::Label(c) => Some((*c, ())),
        Sub::Ellipsis => None,
    }) {
        if !letters.contains(&c) {
            return Err(Error::invalid_argument(format!(
                "Einstein sum subscript '{}' does not appear in the inputs",
                c as char
            )));
        }
    }
    let mut bsizes = vec![1usize; nb];
    for (i, a) in axes.iter().enumerate() {
        for (axis, lab) in a.iter().enumerate() {
            let d = shapes[i][axis];
            match *lab {
                Ok(l) => match sizes[l] {
                    Some(prev) if prev != d && prev != 0 => {
                        return Err(Error::invalid_argument(format!(
                            "Expected dimension {prev} at axis {axis} of the input shaped {} \
                             but got dimension {d}",
                            format_dims(shapes[i])
                        )))
                    }
                    _ => sizes[l] = Some(d),
                },
                Err(b) => {
                    if bsizes[b] == 1 {
                        bsizes[b] = d;
                    } else if d != 1 && d != bsizes[b] {
                        return Err(Error::invalid_argument(format!(
                            "Expected input {i} to be broadcastable to the other inputs: \
                             dimension {d} at axis {axis} of the input shaped {} does not \
                             match {}",
                            format_dims(shapes[i]),
                            bsizes[b]
                        )));
                    }
                }
            }
        }
    }
    let mut all: Vec<usize> = sizes.into_iter().map(|s| s.unwrap_or(1)).collect();
    all.extend(bsizes);
    let operands = axes
        .iter()
        .zip(shapes)
        .map(|(a, s)| {
            let mut strides: Vec<(usize, usize)> = Vec::new();
            let mut st = 1usize;
            for (axis, lab) in a.iter().enumerate().rev() {
                let l = lab.unwrap_or_else(|b| nl + b);
                let eff = if s[axis] == 1 && all[l] != 1 { 0 } else { st };
                match strides.iter_mut().find(|(x, _)| *x == l) {
                    Some((_, v)) => *v += eff,
                    None => strides.push((l, eff)),
                }
                st *= s[axis];
            }
            strides.reverse();
            strides
        })
        .collect();
    let mut output = Vec::with_capacity(eq.output.len() + nb);
    for sub in &eq.output {
        match sub {
            Sub::Label(c) => output.push(letters.iter().position(|x| x == c).unwrap_or(0)),
            Sub::Ellipsis => output.extend(nl..nl + nb),
        }
    }
    Ok(Geometry {
        sizes: all,
        operands,
        output,
    })
}

/// Visits the offsets `Σ idx_k * strides_k` of every index of `sizes`, in row-major order.
pub(crate) fn offsets(sizes: &[usize], strides: &[usize], mut f: impl FnMut(usize)) {
    if sizes.contains(&0) {
        return;
    }
    let mut idx = vec![0usize; sizes.len()];
    let mut off = 0usize;
    loop {
        f(off);
        let mut k = sizes.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            idx[k] += 1;
            off += strides[k];
            if idx[k] < sizes[k] {
                break;
            }
            off -= strides[k] * idx[k];
            idx[k] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_resolves_like_tensorflow() {
        let e = parse("ij,jk->ik").unwrap();
        assert_eq!(e.inputs.len(), 2);
        assert!(parse("ij,jk").is_err());
        assert!(parse("a,b,c->")
            .unwrap_err()
            .message()
            .contains("1 or 2 input"));
        assert_eq!(resolve("ab,bc", 2).unwrap(), "ab,bc->ac");
        assert_eq!(resolve("ii", 1).unwrap(), "ii->");
        assert_eq!(resolve("ba", 1).unwrap(), "ba->ab");
        assert_eq!(resolve("...ij,jk", 2).unwrap(), "...ij,jk->...ik");
        assert!(resolve("ij->ii", 1).is_err());
        assert!(resolve("ij->k", 1).is_err());
        assert!(resolve("ij,jk->ik", 1).is_err());
    }

    #[test]
    fn geometry_folds_diagonals_and_broadcasts() {
        let g = geometry(&parse("ii->i").unwrap(), &[&[3, 3]]).unwrap();
        assert_eq!(g.operands[0], vec![(0, 4)]);
        let g = geometry(
            &parse("...ij,...jk->...ik").unwrap(),
            &[&[2, 1, 2, 3], &[3, 3, 2]],
        )
        .unwrap();
        assert_eq!(g.output_shape(), vec![2, 3, 2, 2]);
        let e = geometry(&parse("ij,jk->ik").unwrap(), &[&[2, 3], &[4, 2]]).unwrap_err();
        assert_eq!(
            e.message(),
            "Expected dimension 3 at axis 0 of the input shaped [4,2] but got dimension 4"
        );
        let e = geometry(&parse("ijk->k").unwrap(), &[&[2, 3]]).unwrap_err();
        assert_eq!(e.message(), "Expected input 0 to have rank 3 but got: 2");
        let mut seen = Vec::new();
        offsets(&[2, 3], &[1, 10], |o| seen.push(o));
        assert_eq!(seen, vec![0, 10, 20, 1, 11, 21]);
    }
}
