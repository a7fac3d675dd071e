pub fn run(_cases: usize) -> Result<(), super::Failure> {
    Ok(())
}
