using System;

namespace Demo
{
    public interface IGreeter
    {
        string Greet(string name);
    }

    public class Greeter : IGreeter
    {
        private readonly string prefix;

        public Greeter(string prefix)
        {
            this.prefix = prefix;
        }

        public string Greet(string name) => prefix + name;

        public int Count { get; set; }
    }

    public struct Pair { public int A; }

    public enum Mood { Happy, Sad }

    public record Person(string Name);
}
