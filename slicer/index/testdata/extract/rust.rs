use std::fmt;

pub const LIMIT: usize = 10;
static NAME: &str = "x";

pub struct Point {
    x: i32,
    y: i32,
}

pub enum Shape {
    Circle(f64),
    Square(f64),
}

pub trait Area {
    fn area(&self) -> f64;
}

impl Area for Shape {
    fn area(&self) -> f64 {
        match self {
            Shape::Circle(r) => 3.14 * r * r,
            Shape::Square(s) => s * s,
        }
    }
}

impl Point {
    pub fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }
}

type Pair = (i32, i32);

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

mod inner {
    pub fn helper() {}
}

fn main() {
    let p = Point::new(1, 2);
    println!("{}", p.x);
}
