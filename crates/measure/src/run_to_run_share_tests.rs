//! The machine's share: which series it pools.

use super::*;

#[test]
fn a_beta_that_cannot_be_told_from_zero_does_not_set_the_machines_share() {
    let run = |alpha: f64, beta: f64, beta_half: f64| Estimate {
        alpha,
        alpha_ci: (alpha * 0.99, alpha * 1.01),
        beta,
        beta_ci: (beta - beta_half, beta + beta_half),
        df: Some(9),
    };
    // A series whose β wanders around 0.02 ± 0.5: its relative
    // variance is enormous, and it is noise.
    let flat: Vec<Estimate> = [0.01, 0.03, 0.02, 0.04]
        .iter()
        .zip([100.0, 103.0, 98.0, 101.0])
        .map(|(&b, a)| run(a, b, 0.5))
        .collect();
    // A series whose β is clear of its noise, moving by about 2%.
    let clear: Vec<Estimate> = [10.0, 10.2, 9.8, 10.1]
        .iter()
        .map(|&b| run(1000.0, b, 0.05))
        .collect();
    let m = machine_share(&[flat.clone(), clear]).unwrap();
    assert!(
        m.beta < 0.05,
        "β's share {} from the clear series alone",
        m.beta
    );
    assert_eq!(m.beta_df, Some(3));
    assert_eq!(m.df, 6, "both series' α count");
    // The flat series alone gives α a share and β none.
    let m = machine_share(&[flat]).unwrap();
    assert_eq!((m.beta, m.beta_df), (0.0, Some(0)));
    assert!(m.alpha > 0.0 && m.df == 3);
}
