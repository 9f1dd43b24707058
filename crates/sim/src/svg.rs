//! Minimal self-contained SVG charts for the reproduce report (simulator
//! layer; reporting only): grouped bars and line series.

use std::fmt::Write as _;

/// Text for an HTML or SVG text node: `&`, `<` and `>` escaped. Every
/// page the simulator writes escapes with this one.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

const COLORS: [&str; 6] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1",
];

/// Grouped bar chart: `groups` on the x axis, one bar per series in each.
/// Approximate advance of one character at the charts' 11 px sans-serif.
const CHAR_W: f64 = 6.2;
/// Width of a legend character, room for capitals (DYNAMIC WORKLOADQ).
const LEGEND_CHAR_W: f64 = 7.4;

/// Places legend entries left to right from `left`, wrapping to a new row
/// before `right`; returns (x, row) per entry.
fn legend_layout<'a>(
    names: impl Iterator<Item = &'a str>,
    left: f64,
    right: f64,
) -> Vec<(f64, usize)> {
    let mut out = Vec::new();
    let (mut x, mut row) = (left, 0usize);
    for n in names {
        // Legend names are often upper case, wider than CHAR_W's average.
        let width = 14.0 + n.chars().count() as f64 * LEGEND_CHAR_W + 16.0;
        if x > left && x + width > right {
            x = left;
            row += 1;
        }
        out.push((x, row));
        x += width;
    }
    out
}

pub fn bars(title: &str, groups: &[String], series: &[(String, Vec<f64>)], unit: &str) -> String {
    bars_ranged(title, groups, series, &[], unit)
}

/// As [`bars`], each bar with a whisker from `ranges[series][group]`'s
/// low to its high (the lowest and highest of several runs whose mean the
/// bar is); a bar without a range (`None`, or an empty `ranges`) has none.
pub fn bars_ranged(
    title: &str,
    groups: &[String],
    series: &[(String, Vec<f64>)],
    ranges: &[Vec<Option<(f64, f64)>>],
    unit: &str,
) -> String {
    // Group labels that do not fit under their group are slanted, and the
    // chart grows (down, and left for the first label) to make room, so long
    // labels never overlap or run off the canvas. Bars are signed: negative
    // values hang below the zero line.
    let w = 640.0;
    let longest = groups.iter().map(|g| g.chars().count()).max().unwrap_or(0) as f64;
    let gw_at = |l: f64| (w - l - 20.0) / groups.len().max(1) as f64;
    let slant = longest * CHAR_W > gw_at(70.0) * 0.95;
    let l = if slant {
        (longest * CHAR_W * 0.82 - gw_at(70.0) * 0.5 + 8.0).clamp(70.0, 260.0)
    } else {
        70.0
    };
    let plot_w = w - l - 20.0;
    let gw = gw_at(l);
    let label_drop = if slant {
        (longest * CHAR_W * 0.57).min(140.0)
    } else {
        0.0
    };
    let legend = legend_layout(series.iter().map(|(n, _)| n.as_str()), 70.0, w - 10.0);
    let legend_rows = legend.last().map_or(1, |(_, row)| row + 1) as f64;
    let b = 36.0 + label_drop + 16.0 * legend_rows;
    let h = 250.0 + b;
    let values = || {
        series.iter().flat_map(|s| s.1.iter().copied()).chain(
            ranges
                .iter()
                .flat_map(|r| r.iter().flatten().flat_map(|&(a, b)| [a, b])),
        )
    };
    let (lo, hi, step) = nice_axis(
        values().fold(0.0f64, f64::min),
        values().fold(0.0f64, f64::max),
    );
    let span = (hi - lo).max(1e-12);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = write!(
        s,
        r#"<text x="{}" y="16" font-size="13" text-anchor="middle">{}</text>"#,
        w / 2.0,
        esc(title)
    );
    let plot_h = h - b - 30.0;
    let y_of = |v: f64| 30.0 + plot_h * (hi - v) / span;
    let ticks = ((hi - lo) / step).round() as usize;
    for k in 0..=ticks {
        let v = lo + step * k as f64;
        let y = y_of(v);
        let _ = write!(
            s,
            r##"<text x="{}" y="{}" text-anchor="end">{}</text><line x1="{l}" y1="{y}" x2="{}" y2="{y}" stroke="#ddd"/>"##,
            l - 4.0,
            y + 4.0,
            fmt_num(v),
            l + plot_w
        );
    }
    let zero = y_of(0.0);
    let _ = write!(
        s,
        r#"<line x1="{l}" y1="{zero:.1}" x2="{}" y2="{zero:.1}" stroke="black"/>"#,
        l + plot_w,
    );
    let _ = write!(
        s,
        r#"<text x="12" y="{}" transform="rotate(-90 12 {})" text-anchor="middle">{}</text>"#,
        30.0 + plot_h / 2.0,
        30.0 + plot_h / 2.0,
        esc(unit)
    );
    let bw = gw * 0.8 / series.len().max(1) as f64;
    for (gi, g) in groups.iter().enumerate() {
        let x0 = l + gi as f64 * gw + gw * 0.1;
        for (si, (_, vals)) in series.iter().enumerate() {
            let v = vals.get(gi).copied().unwrap_or(0.0);
            let (top, bottom) = if v >= 0.0 {
                (y_of(v), zero)
            } else {
                (zero, y_of(v))
            };
            let _ = write!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}</title></rect>"#,
                x0 + si as f64 * bw,
                top,
                bw * 0.95,
                bottom - top,
                COLORS[si % COLORS.len()],
                fmt_num(v)
            );
            if let Some(&Some((a, b))) = ranges.get(si).and_then(|r| r.get(gi)) {
                let cx = x0 + si as f64 * bw + bw * 0.475;
                let (ya, yb) = (y_of(a), y_of(b));
                let cap = bw * 0.2;
                let _ = write!(
                    s,
                    r#"<path d="M{:.1} {ya:.1}V{yb:.1}M{:.1} {ya:.1}H{:.1}M{:.1} {yb:.1}H{:.1}" stroke="black" fill="none"><title>{} .. {}</title></path>"#,
                    cx,
                    cx - cap,
                    cx + cap,
                    cx - cap,
                    cx + cap,
                    fmt_num(a),
                    fmt_num(b)
                );
            }
        }
        let (lx, ly) = (x0 + gw * 0.4, 30.0 + plot_h + 14.0);
        if slant {
            let _ = write!(
                s,
                r#"<text x="{lx:.1}" y="{ly}" text-anchor="end" transform="rotate(-35 {lx:.1} {ly})">{}</text>"#,
                esc(g)
            );
        } else {
            let _ = write!(
                s,
                r#"<text x="{lx:.1}" y="{ly}" text-anchor="middle">{}</text>"#,
                esc(g)
            );
        }
    }
    let legend_top = h - 16.0 * legend_rows;
    for (si, ((name, _), (x, row))) in series.iter().zip(&legend).enumerate() {
        let y = legend_top + 16.0 * *row as f64;
        let _ = write!(
            s,
            r#"<rect x="{x}" y="{}" width="10" height="10" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            y + 1.0,
            COLORS[si % COLORS.len()],
            x + 14.0,
            y + 10.0,
            esc(name)
        );
    }
    s.push_str("</svg>");
    s
}

/// Line chart of several (x, y) series.
pub fn lines(
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[(String, Vec<(f64, f64)>)],
    logx: bool,
) -> String {
    let (w, l) = (640.0, 70.0);
    // The legend wraps as the bars' does, and the chart grows to hold it.
    let legend = legend_layout(series.iter().map(|(n, _)| n.as_str()), l, w - 10.0);
    let legend_rows = legend.last().map_or(1, |(_, row)| row + 1) as f64;
    let b = 34.0 + 16.0 * legend_rows;
    let h = 250.0 + b;
    let tx = |x: f64| if logx { x.max(1e-9).log10() } else { x };
    let pts = series.iter().flat_map(|s| s.1.iter());
    // The y axis always holds zero, and reaches below it when a series does.
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, 0.0f64, 0.0f64);
    for &(x, y) in pts {
        x0 = x0.min(tx(x));
        x1 = x1.max(tx(x));
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 >= x1 {
        x1 = x0 + 1.0;
    }
    if y1 - y0 < 1e-12 {
        y1 = y0 + 1e-12;
    }
    let (y0, y1, ystep) = nice_axis(y0, y1);
    let yticks = ((y1 - y0) / ystep).round().max(1.0) as usize;
    let plot_w = w - l - 20.0;
    let plot_h = h - b - 30.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = write!(
        s,
        r#"<text x="{}" y="16" font-size="13" text-anchor="middle">{}</text>"#,
        w / 2.0,
        esc(title)
    );
    let _ = write!(
        s,
        r#"<rect x="{l}" y="30" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>"#
    );
    for k in 0..=yticks {
        let v = y0 + ystep * k as f64;
        let y = 30.0 + plot_h - plot_h * (v - y0) / (y1 - y0);
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            l - 4.0,
            y + 4.0,
            fmt_num(v)
        );
    }
    for k in 0..=4 {
        let xv = x0 + (x1 - x0) * k as f64 / 4.0;
        let xv = if logx { 10f64.powf(xv) } else { xv };
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            l + plot_w * k as f64 / 4.0,
            30.0 + plot_h + 14.0,
            fmt_num(xv)
        );
    }
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        l + plot_w / 2.0,
        30.0 + plot_h + 28.0,
        esc(xlabel)
    );
    let _ = write!(
        s,
        r#"<text x="12" y="{}" transform="rotate(-90 12 {})" text-anchor="middle">{}</text>"#,
        30.0 + plot_h / 2.0,
        30.0 + plot_h / 2.0,
        esc(ylabel)
    );
    for (si, (name, data)) in series.iter().enumerate() {
        let mut d = String::new();
        for (i, &(x, y)) in data.iter().enumerate() {
            let px = l + plot_w * (tx(x) - x0) / (x1 - x0);
            let py = 30.0 + plot_h - plot_h * (y - y0) / (y1 - y0);
            let _ = write!(d, "{}{:.1},{:.1} ", if i == 0 { "M" } else { "L" }, px, py);
        }
        let c = COLORS[si % COLORS.len()];
        let _ = write!(
            s,
            r#"<path d="{d}" fill="none" stroke="{c}" stroke-width="1.5"/>"#
        );
        let (x, row) = legend.get(si).copied().unwrap_or((l, 0));
        let y = h - 16.0 * legend_rows + 16.0 * row as f64;
        let _ = write!(
            s,
            r#"<rect x="{x}" y="{}" width="10" height="10" fill="{c}"/><text x="{}" y="{}">{}</text>"#,
            y + 1.0,
            x + 14.0,
            y + 10.0,
            esc(name)
        );
    }
    s.push_str("</svg>");
    s
}

/// An axis from `lo` to `hi` widened to whole steps of 1, 2, 2.5 or 5
/// times a power of ten, three to six of them: (low, high, step), so the
/// gridlines fall on round values. A span of nothing (all values equal)
/// gets one unit of four steps above its value.
fn nice_axis(lo: f64, hi: f64) -> (f64, f64, f64) {
    if hi - lo < 1e-9 {
        return (lo, lo + 1.0, 0.25);
    }
    let span = hi - lo;
    let raw = span / 4.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * mag);
    let low = (lo / step + 1e-9).floor() * step;
    let high = (hi / step - 1e-9).ceil() * step;
    (low, high.max(low + step), step)
}

fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a < 1e-9 {
        return "0".into();
    }
    // A round tick reads as a whole number (50, not 50.0).
    if a < 1e4 && (v - v.round()).abs() < 1e-9 {
        return format!("{v:.0}");
    }
    if a >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        // Three significant digits, trailing zeros dropped (0.0025, 0.25).
        let decimals = (2.0 - a.log10().floor()).clamp(1.0, 12.0) as usize;
        let s = format!("{v:.decimals$}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn axes_fall_on_round_values() {
        for (lo, hi, want) in [
            (0.0, 26_300.0, (0.0, 30_000.0, 10_000.0)),
            (-13.5, 51.5, (-20.0, 60.0, 20.0)),
            (0.0, 0.9, (0.0, 1.0, 0.25)),
            (0.0, 100.0, (0.0, 100.0, 25.0)),
        ] {
            assert_eq!(nice_axis(lo, hi), want, "{lo}..{hi}");
        }
        assert_eq!(fmt_num(0.0), "0");
        assert_eq!(fmt_num(-0.0), "0");
        assert_eq!(fmt_num(0.0025), "0.0025");
        assert_eq!(fmt_num(0.25), "0.25");
        assert_eq!(fmt_num(0.0075), "0.0075");
        // All values equal: four steps above, not two zeros.
        assert_eq!(nice_axis(0.0, 0.0), (0.0, 1.0, 0.25));
    }

    #[test]
    fn charts_are_well_formed_svg() {
        let b = bars(
            "t<1>",
            &["A".into(), "B".into()],
            &[("s".into(), vec![1.0, 2.0])],
            "u",
        );
        assert!(b.starts_with("<svg") && b.ends_with("</svg>"));
        assert!(b.contains("t&lt;1&gt;"));
        assert_eq!(b.matches("<rect").count(), 3, "two bars and one legend box");
        let l = lines(
            "x",
            "a",
            "b",
            &[("s".into(), vec![(1.0, 1.0), (10.0, 2.0)])],
            true,
        );
        assert!(l.contains("<path d=\"M"));
    }

    #[test]
    fn negative_bars_hang_below_the_zero_line() {
        let b = bars(
            "t",
            &["A".into(), "B".into()],
            &[("s".into(), vec![2.0, -1.0])],
            "u",
        );
        let ys: Vec<f64> = b
            .split("<rect x=")
            .skip(1)
            .take(2)
            .map(|r| {
                let y = &r[r.find("y=\"").map_or(0, |i| i + 3)..];
                y[..y.find('"').unwrap_or(0)].parse().unwrap_or(f64::NAN)
            })
            .collect();
        // The positive bar starts higher on the canvas than the negative one,
        // which starts at the zero line, two thirds of the way down.
        assert!(ys[0] < ys[1], "{ys:?}");
        assert!(b.contains(">-1<"), "the negative tick or value is shown");
    }

    #[test]
    fn line_charts_of_negative_values_label_their_ticks() {
        let l = lines(
            "t",
            "x",
            "change",
            &[("s".into(), vec![(0.0, -12.0), (1.0, -30.0)])],
            false,
        );
        // The axis runs from -30 to 0 in round steps, not as five zeros.
        for tick in [">-30<", ">-20<", ">-10<", ">0<"] {
            assert!(l.contains(tick), "missing tick {tick}: {l}");
        }
        // Every point lies inside the plot area (y from 30 to 30 + plot height).
        let d = &l[l.find("<path d=\"").map_or(0, |i| i + 9)..];
        let d = &d[..d.find('"').unwrap_or(0)];
        let ys: Vec<f64> = d
            .split_whitespace()
            .filter_map(|p| p.split(',').nth(1)?.parse().ok())
            .collect();
        assert_eq!(ys.len(), 2);
        assert!(ys.iter().all(|y| (30.0..=300.0).contains(y)), "{ys:?}");
        assert!(ys[0] < ys[1], "-12 is drawn above -30: {ys:?}");
    }

    #[test]
    fn long_group_labels_slant_and_legends_wrap() {
        let short = bars(
            "t",
            &["A".into(), "B".into()],
            &[("s".into(), vec![1.0, 2.0])],
            "u",
        );
        assert!(!short.contains("rotate(-35"));
        let groups: Vec<String> = (0..8)
            .map(|i| format!("a rather long group label number {i}"))
            .collect();
        let series: Vec<(String, Vec<f64>)> = (0..6)
            .map(|i| (format!("series with a long name {i}"), vec![1.0; 8]))
            .collect();
        let long = bars("t", &groups, &series, "u");
        assert_eq!(long.matches("rotate(-35").count(), 8);
        let rows = legend_layout(series.iter().map(|(n, _)| n.as_str()), 70.0, 630.0);
        assert!(rows.last().map(|r| r.1).unwrap_or(0) >= 1, "legend wraps");
        assert!(rows.iter().all(|(x, _)| *x < 630.0));
        // The chart grew to hold slanted labels and two legend rows.
        let height = |svg: &str| -> f64 {
            let rest = &svg[svg.find("height=\"").map_or(0, |i| i + 8)..];
            rest[..rest.find('"').unwrap_or(0)].parse().unwrap_or(0.0)
        };
        assert!(height(&long) > height(&short) + 60.0);
    }
}
