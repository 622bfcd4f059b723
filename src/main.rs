fn main() {
    stampede::start();
}
