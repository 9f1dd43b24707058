//! Minimal self-contained SVG charts for the reproduce report (simulator
//! layer; reporting only): grouped bars and line series.

use std::fmt::Write as _;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

const COLORS: [&str; 6] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1",
];

/// Grouped bar chart: `groups` on the x axis, one bar per series in each.
pub fn bars(title: &str, groups: &[String], series: &[(String, Vec<f64>)], unit: &str) -> String {
    let (w, h, l, b) = (640.0, 300.0, 70.0, 50.0);
    let maxv = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .fold(0.0f64, |a, v| a.max(v.abs()))
        .max(1e-12);
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
    let plot_w = w - l - 20.0;
    let plot_h = h - b - 30.0;
    let _ = write!(
        s,
        r#"<line x1="{l}" y1="{}" x2="{}" y2="{}" stroke="black"/>"#,
        30.0 + plot_h,
        l + plot_w,
        30.0 + plot_h
    );
    for k in 0..=4 {
        let v = maxv * k as f64 / 4.0;
        let y = 30.0 + plot_h - plot_h * k as f64 / 4.0;
        let _ = write!(
            s,
            r##"<text x="{}" y="{}" text-anchor="end">{}</text><line x1="{l}" y1="{y}" x2="{}" y2="{y}" stroke="#ddd"/>"##,
            l - 4.0,
            y + 4.0,
            fmt_num(v),
            l + plot_w
        );
    }
    let _ = write!(
        s,
        r#"<text x="12" y="{}" transform="rotate(-90 12 {})" text-anchor="middle">{}</text>"#,
        30.0 + plot_h / 2.0,
        30.0 + plot_h / 2.0,
        esc(unit)
    );
    let gw = plot_w / groups.len().max(1) as f64;
    let bw = gw * 0.8 / series.len().max(1) as f64;
    for (gi, g) in groups.iter().enumerate() {
        let x0 = l + gi as f64 * gw + gw * 0.1;
        for (si, (_, vals)) in series.iter().enumerate() {
            let v = vals.get(gi).copied().unwrap_or(0.0).abs();
            let bh = plot_h * v / maxv;
            let _ = write!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}</title></rect>"#,
                x0 + si as f64 * bw,
                30.0 + plot_h - bh,
                bw * 0.95,
                bh,
                COLORS[si % COLORS.len()],
                fmt_num(v)
            );
        }
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
            x0 + gw * 0.4,
            30.0 + plot_h + 14.0,
            esc(g)
        );
    }
    for (si, (name, _)) in series.iter().enumerate() {
        let x = l + si as f64 * 150.0;
        let _ = write!(
            s,
            r#"<rect x="{x}" y="{}" width="10" height="10" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            h - 14.0,
            COLORS[si % COLORS.len()],
            x + 14.0,
            h - 5.0,
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
    let (w, h, l, b) = (640.0, 300.0, 70.0, 50.0);
    let tx = |x: f64| if logx { x.max(1e-9).log10() } else { x };
    let pts = series.iter().flat_map(|s| s.1.iter());
    let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, 0.0f64);
    for &(x, y) in pts {
        x0 = x0.min(tx(x));
        x1 = x1.max(tx(x));
        y1 = y1.max(y);
    }
    if x0 >= x1 {
        x1 = x0 + 1.0;
    }
    let y1 = y1.max(1e-12);
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
    for k in 0..=4 {
        let v = y1 * k as f64 / 4.0;
        let y = 30.0 + plot_h - plot_h * k as f64 / 4.0;
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            l - 4.0,
            y + 4.0,
            fmt_num(v)
        );
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
        h - 22.0,
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
            let py = 30.0 + plot_h - plot_h * y / y1;
            let _ = write!(d, "{}{:.1},{:.1} ", if i == 0 { "M" } else { "L" }, px, py);
        }
        let c = COLORS[si % COLORS.len()];
        let _ = write!(
            s,
            r#"<path d="{d}" fill="none" stroke="{c}" stroke-width="1.5"/>"#
        );
        let x = l + si as f64 * 150.0;
        let _ = write!(
            s,
            r#"<rect x="{x}" y="{}" width="10" height="10" fill="{c}"/><text x="{}" y="{}">{}</text>"#,
            h - 14.0,
            x + 14.0,
            h - 5.0,
            esc(name)
        );
    }
    s.push_str("</svg>");
    s
}

fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
}
