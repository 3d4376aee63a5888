package com.example;

import java.util.List;

public class Library {
    private final List<Book> books;
    public static final int MAX = 10;

    public Library(List<Book> books) {
        this.books = books;
    }

    public int count() {
        return books.size();
    }

    interface Visitor {
        void visit(Book b);
    }

    enum Kind { PAPER, EBOOK }

    record Book(String title) {}
}
