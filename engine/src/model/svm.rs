//! libsvm's ν-SVR with an RBF kernel, as libvmaf 2.3.1 embeds it (libsvm
//! 3.24): the model text a JSON model carries in `model_dict.model`, parsed as
//! libsvm's `svm_load_model` reads it, and its prediction, operation by
//! operation as libsvm's `svm_predict_values` computes it.

use crate::{Error, Result};

/// A parsed libsvm ν-SVR model with an RBF kernel.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Svm {
    /// The RBF kernel's `gamma`.
    gamma: f64,
    /// The decision function's offset, subtracted from the sum.
    rho: f64,
    /// Dense length of every support vector (the largest feature index seen,
    /// at least the model's feature count).
    width: usize,
    /// Per support vector, in file order: its coefficient and its values at
    /// feature indices `1..=width` (0 where the sparse line leaves one out).
    vectors: Vec<(f64, Vec<f64>)>,
}

/// A libsvm error naming what is wrong (the caller adds the file).
fn bad(what: impl std::fmt::Display) -> Error {
    Error::InvalidOption(format!("its libsvm model text: {what}"))
}

/// One number of the libsvm text (C++ `istream >> double` there, correctly
/// rounded like Rust's parser).
fn number(token: &str, what: &str) -> Result<f64> {
    token
        .parse::<f64>()
        .map_err(|_| bad(format_args!("{what}: {token:?} is not a number")))
}

impl Svm {
    /// Parses libsvm's model text. `features` is the model's feature count:
    /// a support vector index outside `1..=features` is refused (libvmaf
    /// would read past its feature row).
    pub(crate) fn parse<'a>(text: &'a str, features: usize) -> Result<Svm> {
        let mut lines = text.lines();
        let (mut gamma, mut rho, mut total) = (None, None, None);
        for line in lines.by_ref() {
            let mut words = line.split_whitespace();
            let Some(key) = words.next() else { continue };
            let value = words.next();
            let need =
                |v: Option<&'a str>| v.ok_or_else(|| bad(format_args!("{key} has no value")));
            match key {
                "svm_type" if need(value)? != "nu_svr" => {
                    return Err(bad(format_args!(
                        "svm_type {}: only nu_svr is supported",
                        need(value)?
                    )))
                }
                "kernel_type" if need(value)? != "rbf" => {
                    return Err(bad(format_args!(
                        "kernel_type {}: only rbf is supported",
                        need(value)?
                    )))
                }
                "svm_type" | "kernel_type" | "nr_class" => {}
                "gamma" => gamma = Some(number(need(value)?, "gamma")?),
                "rho" => rho = Some(number(need(value)?, "rho")?),
                "total_sv" => {
                    let v = need(value)?;
                    total = Some(
                        v.parse::<usize>()
                            .map_err(|_| bad(format_args!("total_sv: {v:?} is not a count")))?,
                    );
                }
                "SV" => break,
                other => return Err(bad(format_args!("unknown line {other:?}"))),
            }
        }
        let gamma = gamma.ok_or_else(|| bad("no gamma line"))?;
        let rho = rho.ok_or_else(|| bad("no rho line"))?;
        let total = total.ok_or_else(|| bad("no total_sv line"))?;
        let mut vectors = Vec::with_capacity(total);
        for (n, line) in lines.filter(|l| !l.trim().is_empty()).enumerate() {
            vectors.push(Self::support_vector(line, n, features)?);
        }
        if vectors.len() != total {
            return Err(bad(format_args!(
                "total_sv is {total} but {} support vectors follow",
                vectors.len()
            )));
        }
        Ok(Svm {
            gamma,
            rho,
            width: features,
            vectors,
        })
    }

    /// One `coef index:value ...` line, dense over `1..=features`.
    fn support_vector(line: &str, n: usize, features: usize) -> Result<(f64, Vec<f64>)> {
        let mut words = line.split_whitespace();
        let what = format!("support vector {n}");
        let coef = number(words.next().unwrap_or(""), &what)?;
        let mut dense = vec![0.0; features];
        let mut last = 0usize;
        for pair in words {
            let (index, value) = pair
                .split_once(':')
                .ok_or_else(|| bad(format_args!("{what}: {pair:?} is not index:value")))?;
            let index: usize = index
                .parse()
                .ok()
                .filter(|&i| i > last && i <= features)
                .ok_or_else(|| {
                    bad(format_args!(
                        "{what}: index {index:?} is not in 1..={features} and above the one before"
                    ))
                })?;
            dense[index - 1] = number(value, &what)?;
            last = index;
        }
        Ok((coef, dense))
    }

    /// The number of features the model reads.
    pub(crate) fn width(&self) -> usize {
        self.width
    }

    /// The decision value for the normalised features `x` (`width()` of
    /// them): `Σ coef · exp(-gamma · Σ (x_i − sv_i)²) − rho`, every sum
    /// sequential in file and index order, as libsvm. A feature the sparse
    /// vector leaves out adds `x_i · x_i` there, which equals `(x_i − 0)²`.
    pub(crate) fn predict(&self, x: &[f64]) -> f64 {
        debug_assert_eq!(x.len(), self.width);
        let mut sum = 0.0f64;
        for (coef, sv) in &self.vectors {
            let mut d2 = 0.0f64;
            for (a, b) in x.iter().zip(sv) {
                let d = a - b;
                d2 += d * d;
            }
            sum += coef * (-self.gamma * d2).exp();
        }
        sum - self.rho
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "svm_type nu_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho -1.5\nSV\n2 1:0.25 3:1 \n-1 2:0.5 \n";

    #[test]
    fn parses_and_predicts_sparse_vectors() {
        let svm = Svm::parse(TEXT, 3).unwrap();
        let x = [0.5, 0.25, 2.0];
        let k0 = (-0.5f64 * (0.25 * 0.25 + 0.25 * 0.25 + 1.0)).exp();
        let k1 = (-0.5f64 * (0.25 + 0.0625 + 4.0)).exp();
        assert_eq!(svm.predict(&x), 2.0 * k0 - k1 + 1.5);
    }

    #[test]
    fn refuses_bad_text() {
        for (text, says) in [
            (TEXT.replace("nu_svr", "c_svc"), "only nu_svr"),
            (TEXT.replace("rbf", "linear"), "only rbf"),
            (TEXT.replace("total_sv 2", "total_sv 3"), "3 but 2"),
            (TEXT.replace("3:1", "4:1"), "index \"4\""),
            (TEXT.replace("0.25", "x"), "\"x\" is not a number"),
            (TEXT.replace("rho -1.5\n", ""), "no rho"),
        ] {
            let e = Svm::parse(&text, 3).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
    }
}
