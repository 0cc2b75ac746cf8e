//! Money as pincer prints it: a cost is a sum of token counts times prices, and a sum of
//! floats carries noise (`0.022418999999999998`). Every amount in US dollars that reaches
//! stdout — the result object, `status`, `usage` — goes through [`usd`], so none prints more
//! digits than the prices it came from can mean (issue #47 item 6).

use serde::Serializer;

/// The decimals of a dollar a cost carries. The catalog's prices go to a thousandth of a dollar
/// per million tokens, so a cost is a whole number of billionths; one more place keeps a price
/// a user configures ten times finer, and every float error is far below it.
pub const USD_DECIMALS: i32 = 10;

/// `amount` rounded to [`USD_DECIMALS`] places.
pub fn round_usd(amount: f64) -> f64 {
    let scale = 10f64.powi(USD_DECIMALS);
    let rounded = (amount * scale).round() / scale;
    // Beyond what the scaled amount can hold exactly (billions of dollars) rounding adds noise.
    if rounded.is_finite() { rounded } else { amount }
}

/// `#[serde(serialize_with = "…")]` of every amount in US dollars in pincer's output.
pub fn usd<S: Serializer>(amount: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(round_usd(*amount))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sum_of_costs_prints_the_digits_its_prices_carry() {
        // 3 $/M input, 15 $/M output, 0.30 $/M cache reads: the float sum of the parts.
        let sum = 1_518.0 * 3.0 / 1e6 + 1_111.0 * 15.0 / 1e6 + 777.0 * 0.30 / 1e6;
        assert_eq!(sum.to_string(), "0.021452099999999998");
        assert_eq!(round_usd(sum).to_string(), "0.0214521");
        assert_eq!(round_usd(0.022418999999999998).to_string(), "0.022419");
        assert_eq!(serde_json::to_string(&Wrapped(0.1 + 0.2)).unwrap(), "0.3");
    }

    #[test]
    fn the_finest_price_in_the_catalog_survives_rounding() {
        // One token at 0.005 $/M.
        assert_eq!(round_usd(0.005 / 1e6), 5e-9);
        assert_eq!(round_usd(0.0), 0.0);
    }

    struct Wrapped(f64);

    impl serde::Serialize for Wrapped {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            usd(&self.0, serializer)
        }
    }
}
