//! Rasterises SVG pictures to PNG (resvg), to look at them: `svg_png IN.svg OUT.png`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (input, output) = match (args.get(1), args.get(2)) {
        (Some(i), Some(o)) => (i, o),
        _ => {
            eprintln!("usage: svg_png IN.svg OUT.png");
            std::process::exit(2);
        }
    };
    let svg = std::fs::read_to_string(input).expect("readable SVG");
    // (no text: resvg is built here without its font features)
    let opt = resvg::usvg::Options::default();
    let tree = resvg::usvg::Tree::from_str(&svg, &opt).expect("valid SVG");
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("pixmap");
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap.save_png(output).expect("PNG written");
}
